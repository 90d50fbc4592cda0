/* The answered/precision trade-off of LOCAL_ANSWER_MIN_MARGIN, replayed on the passages each /ask
 * call handed to the generator (the uncovered-topic check is not re-applied). */
import { GenerateInput, LocalGenerator } from '@docqa/llm';
import type { QaItem } from '../rag/qa';
import type { PageRef } from './scoring';

export interface Replay {
  item: QaItem;
  input: GenerateInput;
}

export interface MarginPoint {
  minMargin: number;
  /** Cited pages whose text contains the answer phrase, over all cited pages. */
  precision: number;
  /** Answerable items answered with at least one citation. */
  answered: number;
}

export const MARGINS = [1.0, 1.1, 1.2, 1.3, 1.4, 1.6, 2.0];

export function marginCurve(
  replays: Replay[],
  pageHasPhrase: (ref: PageRef, phrase: string) => boolean,
): MarginPoint[] {
  return MARGINS.map((minMargin) => {
    const gen = new LocalGenerator({ minMargin });
    let cited = 0;
    let correct = 0;
    let answered = 0;
    for (const { item, input } of replays) {
      const text = gen.compose({ ...input, signal: undefined });
      const refs = new Map<string, PageRef>();
      for (const m of text.matchAll(/\[(\d+)\]/g)) {
        const p = input.passages[Number(m[1]) - 1];
        if (p) refs.set(`${p.fileName}#${p.pageNumber}`, p);
      }
      if (refs.size) answered++;
      for (const ref of refs.values()) {
        cited++;
        if (pageHasPhrase(ref, item.answer)) correct++;
      }
    }
    return {
      minMargin,
      precision: cited ? correct / cited : NaN,
      answered: replays.length ? answered / replays.length : NaN,
    };
  });
}
