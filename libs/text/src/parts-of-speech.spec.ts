import { qualifyingWords } from './parts-of-speech';

describe('qualifyingWords', () => {
  it('finds the verbs, adjectives and adverbs of a question, not its nouns and names', () => {
    const w = qualifyingWords(
      'On December 12, 2007 a Bombardier BD-700 was damaged at Charlestown. Which happened earlier in the day (local time)?',
    );
    for (const x of ['happened', 'earlier', 'damaged', 'local']) expect(w).toContain(x);
    for (const x of ['bombardier', 'charlestown', 'day', 'time', 'december']) expect(w).not.toContain(x);
  });

  it('reads a word by its use in the sentence', () => {
    expect(qualifyingWords('Why did the engine quit?')).toContain('quit');
    expect(qualifyingWords('Which runway was longer?')).toContain('longer');
    expect(qualifyingWords('Which runway was longer?')).not.toContain('runway');
    // a word used as a noun anywhere in the text names something and is no qualifier
    expect(qualifyingWords('How do I bake sourdough? What goes into the bake?')).not.toContain('bake');
  });

  it('keeps words it does not know as nouns (unknown names)', () => {
    expect(qualifyingWords('What is the Zorblatt quarterly figure?')).not.toContain('zorblatt');
  });
});
