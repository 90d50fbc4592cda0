import nlp from 'compromise/two';
import { words } from './terms';

/** Tags of words that say what happens to a topic or what it is like, and name none. */
const QUALIFYING_TAGS = ['Verb', 'Adjective', 'Adverb'];

/**
 * The words a text uses as a verb, adjective or adverb and never as a noun, by compromise's
 * part-of-speech tagger (which reads each word in its sentence: "wheels-up" and "the engine
 * quit" differ). A topic is named by nouns and names ("Chandler, Arizona", "sourdough bread");
 * "happened", "earlier" or "injured" ask something about a topic. Words the tagger does not know
 * count as nouns, as unknown names usually are.
 */
export function qualifyingWords(text: string): Set<string> {
  const qualifying = new Set<string>();
  const nouns = new Set<string>();
  for (const term of nlp(text).termList()) {
    const tags = term.tags ?? new Set<string>();
    const target = !tags.has('Noun') && QUALIFYING_TAGS.some((t) => tags.has(t)) ? qualifying : nouns;
    for (const w of words(term.text ?? '')) target.add(w);
  }
  for (const w of nouns) qualifying.delete(w);
  return qualifying;
}
