/* Aggregates item scores into the metrics of docs/evaluation.md (pure). */
import type { ItemScore } from './scoring';

export interface Metrics {
  items: number;
  single: number;
  /** single: gold file / gold page among the first 5 retrieved chunks. */
  fileHit5: number;
  pageHit5: number;
  /** single: the answer cites the gold file / the gold page. */
  citesFile: number;
  citesPage: number;
  /** Citations of answerable items in a gold file, over all their citations. */
  citationPrecisionFile: number;
  /** Citations of answerable items whose page contains the answer phrase, over all their citations. */
  citationPrecisionPhrase: number;
  citationsPerAnswer: number;
  answerHasPhrase: number;
  multi: number;
  /** multi: every named document among the first 5 retrieved / among all passages. */
  multiAllInTop5: number;
  multiAllInPassages: number;
  /** multi: found = every named document cited; page = each on a gold page; only = and nothing else. */
  multiFound: number;
  multiFoundPages: number;
  multiOnlyNamed: number;
  unanswerable: number;
  unanswerableNoCitation: number;
  /** Answerable items answered without any citation. */
  answerableRefused: number;
  /** single: gold file / gold page among the first 10 results of `POST /search` (NaN: not measured). */
  fileHit10: number;
  pageHit10: number;
}

const share = (xs: ItemScore[], f: (x: ItemScore) => boolean | undefined) =>
  xs.length ? xs.filter((x) => f(x) === true).length / xs.length : NaN;

export function aggregate(scores: ItemScore[]): Metrics {
  const single = scores.filter((s) => s.cls === 'single');
  const multi = scores.filter((s) => s.cls === 'multi');
  const unanswerable = scores.filter((s) => s.cls === 'unanswerable');
  const answerable = [...single, ...multi];
  const citations = answerable.reduce((n, s) => n + s.citations, 0);
  const ratio = (n: number, d: number) => (d ? n / d : NaN);
  return {
    items: scores.length,
    single: single.length,
    fileHit5: share(single, (s) => s.fileHit5),
    pageHit5: share(single, (s) => s.pageHit5),
    citesFile: share(single, (s) => s.citesFile),
    citesPage: share(single, (s) => s.citesPage),
    citationPrecisionFile: ratio(
      answerable.reduce((n, s) => n + s.citationsInGoldFile, 0),
      citations,
    ),
    citationPrecisionPhrase: ratio(
      single.reduce((n, s) => n + s.citationsWithPhrase, 0),
      single.reduce((n, s) => n + s.citations, 0),
    ),
    citationsPerAnswer: ratio(citations, answerable.length),
    answerHasPhrase: share(single, (s) => s.answerHasPhrase),
    multi: multi.length,
    multiAllInTop5: share(multi, (s) => s.fileHit5),
    multiAllInPassages: share(multi, (s) => s.allInPassages),
    multiFound: share(multi, (s) => s.citesFile),
    multiFoundPages: share(multi, (s) => s.citesPage),
    multiOnlyNamed: share(multi, (s) => s.citesOnlyNamed),
    unanswerable: unanswerable.length,
    unanswerableNoCitation: share(unanswerable, (s) => s.noCitation),
    answerableRefused: share(answerable, (s) => s.refused),
    fileHit10: share(
      single.filter((s) => s.fileHit10 !== undefined),
      (s) => s.fileHit10,
    ),
    pageHit10: share(
      single.filter((s) => s.pageHit10 !== undefined),
      (s) => s.pageHit10,
    ),
  };
}

/** The metrics of each item kind (FinanceBench's metrics-generated, domain-relevant, novel-generated; dev's kinds). */
export function aggregateByKind(scores: ItemScore[]): Record<string, Metrics> {
  const kinds = [...new Set(scores.map((s) => s.kind))].sort();
  return Object.fromEntries(kinds.map((k) => [k, aggregate(scores.filter((s) => s.kind === k))]));
}
