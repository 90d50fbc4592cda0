/* Scoring of one QA item's answer (pure, no engines): what `npm run eval` counts. */
import { answerVariants, normalisedPhrase, QaItem } from '../rag/qa';

/** A file and page, as retrieved or cited. */
export interface PageRef {
  fileName: string;
  pageNumber: string;
}

/**
 * The pages an answer cites: each `[n]` marker mapped to the passage whose `n` it is, once per file
 * and page, in order of first citation; markers of no given passage are ignored.
 */
export function citedPages(answer: string, passages: readonly (PageRef & { n: number })[]): PageRef[] {
  const byN = new Map(passages.map((p) => [p.n, p]));
  const cited = new Map<string, PageRef>();
  for (const m of answer.matchAll(/\[(\d+)\]/g)) {
    const p = byN.get(Number(m[1]));
    if (p) cited.set(`${p.fileName}#${p.pageNumber}`, { fileName: p.fileName, pageNumber: p.pageNumber });
  }
  return [...cited.values()];
}

/** A document an item's answer must come from, with the pages that state it. */
export interface GoldSource {
  fileName: string;
  pages: Set<number>;
}

export type ItemClass = 'single' | 'multi' | 'unanswerable';

export interface ItemScore {
  id: string;
  kind: string;
  cls: ItemClass;
  /** Held out when weights were chosen (odd-numbered ids); the other half was looked at. */
  heldOut: boolean;
  /** single: the gold file among the first 5 retrieved chunks; multi: every named file is. */
  fileHit5?: boolean;
  /** single: the gold file and page among the first 5; multi: every named file on a gold page. */
  pageHit5?: boolean;
  /** multi: every named file among all passages given to the answerer. */
  allInPassages?: boolean;
  /** single: a citation of the gold file; multi: every named file is cited. */
  citesFile?: boolean;
  /** single: a citation of the gold file on a gold page; multi: every named file on a gold page. */
  citesPage?: boolean;
  /** multi: every named file cited and no other file. */
  citesOnlyNamed?: boolean;
  /** Citations of answerable items in a gold file (numerator of citation precision by file). */
  citationsInGoldFile: number;
  /** Citations of answerable items whose page text contains the answer phrase. */
  citationsWithPhrase: number;
  citations: number;
  /** The answer text contains the answer phrase (single-document items). */
  answerHasPhrase?: boolean;
  /** unanswerable: answered with no citation. */
  noCitation?: boolean;
  /** Answered with no citation at all: a bare refusal when the item is answerable. */
  refused: boolean;
  /** single: the gold file / a gold page among the first 10 results of `POST /search` (when measured). */
  fileHit10?: boolean;
  pageHit10?: boolean;
}

export function goldSources(item: QaItem): GoldSource[] {
  if (!item.fileName || item.page === null) return [];
  return [
    { fileName: item.fileName, pages: new Set([item.page, ...(item.alsoOnPages ?? [])]) },
    ...(item.alsoFiles ?? []).map((f) => ({ fileName: f.fileName, pages: new Set([f.page]) })),
  ];
}

export function itemClass(item: QaItem): ItemClass {
  const gold = goldSources(item);
  if (gold.length === 0) return 'unanswerable';
  return gold.length > 1 || item.kind === 'list' || item.kind === 'compare' ? 'multi' : 'single';
}

/** Odd-numbered items (`sim-003`, `dev-041`) are the held-out half. */
export function isHeldOut(id: string): boolean {
  const m = /(\d+)\s*$/.exec(id);
  return m ? Number(m[1]) % 2 === 1 : false;
}

const onGoldPage = (g: GoldSource, r: PageRef) =>
  r.fileName === g.fileName && g.pages.has(Number(r.pageNumber));

/**
 * Scores an answer. `retrieved` is what the answerer was given, best first; `pageHasPhrase` tells
 * whether a page's text contains a phrase (verify_qa.sh normalisation).
 */
export function scoreItem(
  item: QaItem,
  answer: string,
  citations: PageRef[],
  retrieved: PageRef[],
  pageHasPhrase: (ref: PageRef, phrase: string) => boolean,
  searched?: PageRef[],
): ItemScore {
  const cls = itemClass(item);
  const gold = goldSources(item);
  const base: ItemScore = {
    id: item.id,
    kind: item.kind,
    cls,
    heldOut: isHeldOut(item.id),
    citationsInGoldFile: 0,
    citationsWithPhrase: 0,
    citations: cls === 'unanswerable' ? 0 : citations.length,
    refused: citations.length === 0,
  };
  if (cls === 'unanswerable') return { ...base, noCitation: citations.length === 0 };
  const top5 = retrieved.slice(0, 5);
  const goldFiles = new Set(gold.map((g) => g.fileName));
  base.citationsInGoldFile = citations.filter((c) => goldFiles.has(c.fileName)).length;
  base.citationsWithPhrase = item.answer ? citations.filter((c) => pageHasPhrase(c, item.answer)).length : 0;
  if (cls === 'single') {
    const [g] = gold;
    const top10 = searched?.slice(0, 10);
    return {
      ...base,
      ...(top10
        ? {
            fileHit10: top10.some((r) => r.fileName === g.fileName),
            pageHit10: top10.some((r) => onGoldPage(g, r)),
          }
        : {}),
      fileHit5: top5.some((r) => r.fileName === g.fileName),
      pageHit5: top5.some((r) => onGoldPage(g, r)),
      citesFile: citations.some((c) => c.fileName === g.fileName),
      citesPage: citations.some((c) => onGoldPage(g, c)),
      answerHasPhrase: answerVariants(answer).some((v) => v.includes(normalisedPhrase(item.answer))),
    };
  }
  return {
    ...base,
    fileHit5: gold.every((g) => top5.some((r) => r.fileName === g.fileName)),
    pageHit5: gold.every((g) => top5.some((r) => onGoldPage(g, r))),
    allInPassages: gold.every((g) => retrieved.some((r) => r.fileName === g.fileName)),
    citesFile: gold.every((g) => citations.some((c) => c.fileName === g.fileName)),
    citesPage: gold.every((g) => citations.some((c) => onGoldPage(g, c))),
    citesOnlyNamed:
      gold.every((g) => citations.some((c) => c.fileName === g.fileName)) &&
      citations.every((c) => goldFiles.has(c.fileName)),
  };
}

/** The first n items taken round-robin over kinds (each kind in file order): every prefix mixes kinds. */
export function stratifiedSample(items: QaItem[], n: number): QaItem[] {
  const byKind = new Map<string, QaItem[]>();
  for (const i of items) byKind.set(i.kind, [...(byKind.get(i.kind) ?? []), i]);
  const queues = [...byKind.values()];
  const out: QaItem[] = [];
  while (out.length < Math.min(n, items.length)) {
    for (const q of queues) if (q.length && out.length < n) out.push(q.shift()!);
  }
  return out;
}
