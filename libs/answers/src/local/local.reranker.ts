import { estimateTokens, LOCAL_MODELS, RerankInput, RerankResult, Reranker } from '../generation.port';
import { hasEvidence } from './local.generator';
import { passageProse, PASSAGE_TEXTS_CACHED } from './passage-analysis';
import {
  dateTokens,
  memoByText,
  onStatement,
  questionType,
  stem,
  STOP_WORDS,
  withoutDates,
  words,
} from '@docqa/text';

export interface LocalRerankerOptions {
  /** Width, in words, of the window in which query terms count as close together (default 30). */
  window?: number;
  /**
   * Weight of the search order against the lexical order in the final ranking (default 1: they
   * count alike; 0: lexical order alone). LOCAL_RERANK_SEARCH_WEIGHT.
   */
  searchOrderWeight?: number;
}

/** Rank constant of the fusion of the lexical and the search order (as in search's RRF). */
const ORDER_FUSION_K = 60;

/**
 * Deterministic lexical reranker for the local provider. BM25 scores a chunk by its terms wherever
 * they are; the answer to a question usually sits where the question's terms come together. Each
 * candidate is scored by the query weight of its best window of nearby words (terms weighted by
 * rarity among the candidates), half its whole-chunk coverage, query bigrams kept in order, a
 * bonus when the window holds the kind of answer asked for (a command, a number, a definition),
 * and a penalty for index-like text. Measured on the dev corpus: hit@5 0.83-0.86 -> 0.89-0.90
 * (docs/evaluation.md).
 *
 * The lexical order is then fused with the order search gave the candidates (reciprocal rank
 * fusion, `searchOrderWeight`): the lexical scorer knows nothing of meaning, and without the
 * search order a page close in words but not in meaning could overtake the one hybrid search put
 * first (docs/adr/0030).
 */
export class LocalReranker implements Reranker {
  readonly model = LOCAL_MODELS.reranker;
  private readonly window: number;
  private readonly searchOrderWeight: number;

  constructor(o: LocalRerankerOptions = {}) {
    this.window = o.window ?? 30;
    this.searchOrderWeight = o.searchOrderWeight ?? 1;
    if (!(this.searchOrderWeight >= 0)) throw new RangeError('searchOrderWeight must be a number >= 0');
  }

  async rerank(input: RerankInput): Promise<RerankResult> {
    // A date counts as its day and month tokens (`20071208`, `200712`), as documents write it
    // `12/08/2007` and their context carries those tokens; its words ("December", "2007") would not match.
    const terms = [
      ...new Set([
        ...words(withoutDates(input.query))
          .filter((w) => !STOP_WORDS.has(w) && w.length >= 3 && !/^\d+$/.test(w))
          .map(stem),
        ...dateTokens(input.query),
      ]),
    ];
    // The ask's analysis is of this query; a caller without one gets the query analysed here.
    const type = input.analysis?.queryType ?? questionType(input.query);
    const docs = input.documents.map((text) => tokenised(text));
    const n = docs.length;
    const idf = new Map<string, number>();
    for (const t of terms) {
      const df = docs.filter((d) => d.present.has(t)).length;
      idf.set(t, Math.log(1 + (n + 1) / (df + 0.5)));
    }
    const bigrams = new Set(terms.slice(1).map((t, i) => `${terms[i]} ${t}`));
    const scored = docs.map((d, index) => {
      let coverage = 0;
      for (const t of terms) if (d.present.has(t)) coverage += idf.get(t) ?? 0;
      // Best window: the most query weight among terms at most `window` words apart.
      const hits = d.stems.flatMap((s) => (idf.has(s.stem) ? [{ i: s.token, t: s.stem }] : []));
      let best = 0;
      let span: [number, number] = [0, 0];
      for (let a = 0; a < hits.length; a++) {
        const seen = new Set<string>();
        let sum = 0;
        for (let b = a; b < hits.length && hits[b].i - hits[a].i <= this.window; b++) {
          if (!seen.has(hits[b].t)) {
            seen.add(hits[b].t);
            sum += idf.get(hits[b].t) ?? 0;
          }
          if (sum > best) {
            best = sum;
            span = [hits[a].i, hits[b].i];
          }
        }
      }
      let pairs = 0;
      for (let i = 0; i + 1 < d.stems.length; i++) {
        if (bigrams.has(`${d.stems[i].stem} ${d.stems[i + 1].stem}`)) pairs++;
      }
      let score = 0.5 * coverage + best + 0.5 * Math.min(pairs, 3);
      const around = d.tokens.slice(Math.max(0, span[0] - 12), span[1] + 13).join(' ');
      if (hasEvidence(type, around)) score *= 1.3;
      score *= passageProse(input.documents[index]);
      return { index, score };
    });
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    if (this.searchOrderWeight > 0) {
      // `index` is the search rank (documents come in search order), the position the lexical one
      const fused = (lexicalRank: number, searchRank: number) =>
        1 / (ORDER_FUSION_K + lexicalRank) + this.searchOrderWeight / (ORDER_FUSION_K + searchRank);
      // A page of a statement the question names or reads its metric from ranks lexically no lower
      // than search ranked it: its rows share few of the question's words ("quick ratio", "gross
      // margin profile"), and search already preferred it (libs/search STATEMENT_WEIGHT).
      const statements = input.analysis?.statements ?? [];
      const onNamed = (i: number) => statements.length > 0 && onStatement(input.sections?.[i], statements);
      const lexicalRank = new Map(
        scored.map((s, i) => [s.index, onNamed(s.index) ? Math.min(i + 1, s.index + 1) : i + 1]),
      );
      for (const s of scored) s.score = fused(lexicalRank.get(s.index)!, s.index + 1);
      // a tie (first in one order, as far down in the other) goes to the lexical order
      scored.sort((a, b) => b.score - a.score || lexicalRank.get(a.index)! - lexicalRank.get(b.index)!);
    }
    const top = scored[0]?.score || 1;
    return {
      results: scored.slice(0, input.topN).map((s) => ({ index: s.index, score: s.score / top })),
      call: {
        model: this.model,
        inputTokens: estimateTokens([input.query, ...input.documents].join('\n')),
        outputTokens: 0,
      },
    };
  }
}

interface Tokenised {
  readonly tokens: readonly string[];
  /** Content-word stems with the index of the whitespace token they came from. */
  readonly stems: ReadonlyArray<{ readonly stem: string; readonly token: number }>;
  readonly present: ReadonlySet<string>;
}

function tokenise(text: string): Tokenised {
  const tokens = text.split(/\s+/).filter(Boolean);
  const stems: Array<{ stem: string; token: number }> = [];
  tokens.forEach((tok, i) => {
    for (const w of words(tok)) if (!STOP_WORDS.has(w)) stems.push({ stem: stem(w), token: i });
    for (const t of dateTokens(tok)) stems.push({ stem: t, token: i });
  });
  return { tokens, stems, present: new Set(stems.map((s) => s.stem)) };
}

/** `tokenise` by text: candidates come back ask after ask (memoByText). */
const tokenised = memoByText(tokenise, PASSAGE_TEXTS_CACHED);
