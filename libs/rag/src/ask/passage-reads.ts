import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  abbreviateStates,
  contentStems,
  definedTerms,
  isFiscalPeriodTerm,
  lineItemsAsked,
  memoByText,
  namesIn,
  qualifyingWords,
  queryTerms,
  stem,
  withoutDates,
  withoutInstructions,
} from '@docqa/text';
import { startsMidSentence } from '@docqa/answers';
import {
  nextChunkId,
  previousChunkId,
  SEARCH_INDEX,
  SearchHit,
  SearchIndex,
  StoredChunk,
} from '@docqa/search';
import { endsMidSentence, sentenceContinuation, sentenceStart } from './sentence-continuation';

/**
 * The local answerer cannot judge relevance, so before it answers the pipeline checks that the
 * question is about something the docsets contain: query terms found in none of the retrieved
 * chunks are looked up (BM25, one chunk) in the whole docsets; when at least FOREIGN_MIN_TERMS of
 * them, or FOREIGN_MIN_SHARE of the query's terms, or one name the question writes (`near
 * Chandler, Arizona`: a place, person, product or company; namesIn), occur nowhere, the answer is
 * "not found": documents that never print the name are not about it. Only nouns and names can be foreign: a verb, adjective or adverb of the question (`happened`,
 * `earlier`; `qualifyingWords`) asks something about a topic and names none, and documents rarely
 * use the question's own verb for what they state.
 */
export const FOREIGN_MIN_TERMS = 2;
export const FOREIGN_MIN_SHARE = 0.25;
const FOREIGN_MAX_PROBES = 6;

/**
 * Chunk texts whose stems the topic check keeps (memoByText): twenty asks' worth of passages at the
 * largest retrievalLimit (50), or a docset of 1,000 chunks whose passages keep coming back.
 */
const CHUNK_STEMS_CACHED = 1000;
const chunkStems = memoByText(contentStems, CHUNK_STEMS_CACHED);

/** Start and rest of a passage's cut first and last sentences (sentence-continuation.ts). */
export interface Completion {
  head: string;
  tail: string;
}

export interface PassageReadResult {
  /** The query's topic is not in the docsets (only when the topic was checked). */
  uncovered: boolean;
  /** By chunk id: the completions of the passages whose sentences the chunks cut. */
  completions: Map<string, Completion>;
  /** Whether the engine was read (0 or 1 reads), for the ask's log line. */
  engineRead: boolean;
}

/** The query terms to look up: absent from every hit, not a date, state, instruction or qualifier. */
export function topicProbeTerms(
  query: string,
  hits: readonly SearchHit[],
): { terms: string[]; probe: string[]; names?: ReadonlySet<string> } {
  // Dates and US state names as documents write them (12/08/2007, FL), so a question's
  // "December 8" or "Florida" is not taken for a topic the docsets lack; answer instructions
  // ("Name the locations.") are no topic either.
  const terms = queryTerms(abbreviateStates(withoutDates(withoutInstructions(query))));
  if (terms.length === 0) return { terms, probe: [] };
  const present = new Set(hits.flatMap((h) => chunkStems(h.chunk.text)));
  const absent = terms.filter((t) => !present.has(stem(t)));
  if (absent.length === 0) return { terms, probe: [] };
  // Names the documents need not print: those the question defines ("CCC is defined as: DIO +
  // DSO - DPO"), its fiscal periods (`FY2018`; filings print the year), and line items named as
  // analysts name them ("capex"; statements print "Purchases of property, plant and equipment").
  const defined = definedTerms(query);
  const items = new Set(lineItemsAsked(query).flatMap((i) => i.stems));
  const missing = absent.filter((t) => !defined.has(t) && !items.has(stem(t)) && !isFiscalPeriodTerm(t));
  if (missing.length === 0) return { terms, probe: [] };
  // The tagger runs only when a term is missing from the passages, the uncommon case.
  const qualifying = qualifyingWords(query);
  const names = namesIn(query);
  const probe = missing.filter((t) => !qualifying.has(t) || names.has(t));
  // names first: one of them found nowhere is enough
  probe.sort((a, b) => Number(names.has(b)) - Number(names.has(a)));
  return { terms, probe: probe.slice(0, FOREIGN_MAX_PROBES), names };
}

/** Whether the probed terms that occur nowhere in the docsets say the query is about something else. */
export function isForeignTopic(
  terms: readonly string[],
  probe: readonly string[],
  found: readonly boolean[],
  names: ReadonlySet<string> = new Set(),
): boolean {
  const foreign = probe.filter((_, i) => !found[i]);
  return (
    foreign.length >= FOREIGN_MIN_TERMS ||
    foreign.length / terms.length >= FOREIGN_MIN_SHARE ||
    foreign.some((t) => names.has(t))
  );
}

/**
 * The chunks to read around the passages: the next chunk of a passage that ends mid-sentence and
 * the previous chunk of one that starts mid-sentence, unless that chunk is itself retrieved (it
 * already gives the answerer the whole sentence; a second copy would only count its words twice).
 */
export function neighbourReads(hits: readonly SearchHit[]): {
  followedBy: Map<string, StoredChunk>;
  precededBy: Map<string, StoredChunk>;
} {
  const retrieved = new Set(hits.map((h) => h.chunk.id));
  const followedBy = new Map<string, StoredChunk>();
  const precededBy = new Map<string, StoredChunk>();
  for (const h of hits) {
    const next = endsMidSentence(h.chunk.text) ? nextChunkId(h.chunk) : undefined;
    if (next && !retrieved.has(next)) followedBy.set(next, h.chunk);
    const previous = startsMidSentence(h.chunk.text) ? previousChunkId(h.chunk) : undefined;
    if (previous && !retrieved.has(previous)) precededBy.set(previous, h.chunk);
  }
  return { followedBy, precededBy };
}

/**
 * What the answer needs around its passages, in one engine read (SearchIndex.chunksAndTerms): the
 * uncovered-topic check of the extractive answerers and the chunks that complete the passages'
 * cut-off sentences. A chunk the retrieval already returned (a reranker's candidate that did not
 * make the passages) is taken from there: the same stored chunk, no read. No read at all when
 * nothing is left to probe or fetch.
 */
@Injectable()
export class PassageReads {
  private readonly log = new Logger('AskService');

  constructor(@Inject(SEARCH_INDEX) private readonly index: SearchIndex) {}

  async read(
    scope: { accountId: number; docSetNames: string[] },
    query: string,
    hits: readonly SearchHit[],
    checkTopic: boolean,
    candidates: readonly StoredChunk[] = [],
  ): Promise<PassageReadResult> {
    const completions = new Map<string, Completion>();
    const topic = checkTopic ? topicProbeTerms(query, hits) : { terms: [], probe: [] };
    const { followedBy, precededBy } = neighbourReads(hits);
    const wanted = new Set([...followedBy.keys(), ...precededBy.keys()]);
    const known = candidates.filter((c) => wanted.has(c.id));
    const ids = [...wanted].filter((id) => !known.some((c) => c.id === id));
    const engineRead = ids.length > 0 || topic.probe.length > 0;
    let read = { chunks: [] as StoredChunk[], termsFound: [] as boolean[] };
    try {
      if (engineRead) read = await this.index.chunksAndTerms({ ...scope, ids, terms: topic.probe });
    } catch (err) {
      // Without the topic check there is no answer; the completions alone the answer does not
      // depend on, so a failed read of them leaves the passages as retrieved (logged).
      if (topic.probe.length > 0) throw err;
      // The adapters' errors carry no payload or credential (normaliseError, timedOut).
      const why = err instanceof Error ? err.message : 'unknown error';
      this.log.warn(`ask: passages left as retrieved, the chunks around them could not be read: ${why}`);
      return { uncovered: false, completions, engineRead };
    }
    const uncovered =
      topic.probe.length > 0 && isForeignTopic(topic.terms, topic.probe, read.termsFound, topic.names);
    const entry = (id: string) => {
      const e = completions.get(id) ?? { head: '', tail: '' };
      completions.set(id, e);
      return e;
    };
    for (const n of [...known, ...read.chunks]) {
      const cut = followedBy.get(n.id);
      const tail = cut ? sentenceContinuation(cut, n) : '';
      if (cut && tail) entry(cut.id).tail = tail;
      const opened = precededBy.get(n.id);
      const head = opened ? sentenceStart(n, opened) : '';
      if (opened && head) entry(opened.id).head = head;
    }
    return { uncovered, completions, engineRead };
  }
}

/** A passage's text with the start and rest of its cut first and last sentences, if read. */
export function withCompletions(text: string, c?: Completion): string {
  return c ? c.head + text + c.tail : text;
}
