/* The answered/precision trade-off of LOCAL_ANSWER_MIN_MARGIN, replayed on the passages each /ask
 * call handed to the generator (the uncovered-topic check is not re-applied). */
import { GenerateInput, LocalGenerator } from '@docqa/answers';
import type { QaItem } from '../rag/qa';
import { citedPages, isHeldOut, PageRef } from './scoring';

export interface Replay {
  item: QaItem;
  input: GenerateInput;
}

export interface PrecisionAnswered {
  /** Cited pages whose text contains the answer phrase, over all cited pages. */
  precision: number;
  /** Answerable items answered with at least one citation. */
  answered: number;
}

export interface MarginPoint extends PrecisionAnswered {
  minMargin: number;
  /** The same on the half looked at when choosing (even-numbered ids) and on the held-out half. */
  lookedAt?: PrecisionAnswered;
  heldOut?: PrecisionAnswered;
}

export const MARGINS = [1.0, 1.1, 1.2, 1.3, 1.4, 1.6, 2.0];

/** LOCAL_ANSWER_MIN_MARGIN's default (the LocalGenerator's). */
export const DEFAULT_MARGIN = new LocalGenerator().minMargin;

/** The citation precision the margin is chosen for. */
export const PRECISION_TARGET = 0.8;

/**
 * The margin chosen on the half looked at (even ids): the most answered with citation precision
 * >= PRECISION_TARGET there, else the most precise. Its held-out numbers are the honest ones.
 */
export function chooseMargin(curve: MarginPoint[]): MarginPoint | undefined {
  const withHalves = curve.filter((c) => c.lookedAt);
  const ok = withHalves.filter((c) => (c.lookedAt as PrecisionAnswered).precision >= PRECISION_TARGET);
  if (ok.length) return ok.reduce((b, c) => (c.lookedAt!.answered > b.lookedAt!.answered ? c : b));
  return withHalves.reduce<MarginPoint | undefined>(
    (b, c) => (!b || c.lookedAt!.precision > b.lookedAt!.precision ? c : b),
    undefined,
  );
}

export function marginCurve(
  replays: Replay[],
  pageHasPhrase: (ref: PageRef, phrase: string) => boolean,
): MarginPoint[] {
  const at = (minMargin: number, subset: Replay[]) => replayAt(minMargin, subset, pageHasPhrase);
  return MARGINS.map((minMargin) => ({
    minMargin,
    ...at(minMargin, replays),
    lookedAt: at(
      minMargin,
      replays.filter((r) => !isHeldOut(r.item.id)),
    ),
    heldOut: at(
      minMargin,
      replays.filter((r) => isHeldOut(r.item.id)),
    ),
  }));
}

function replayAt(
  minMargin: number,
  replays: Replay[],
  pageHasPhrase: (ref: PageRef, phrase: string) => boolean,
): PrecisionAnswered {
  const gen = new LocalGenerator({ minMargin });
  let cited = 0;
  let correct = 0;
  let answered = 0;
  for (const { item, input } of replays) {
    const text = gen.compose({ ...input, signal: undefined });
    const refs = citedPages(text, input.passages);
    if (refs.length) answered++;
    for (const ref of refs) {
      cited++;
      if (pageHasPhrase(ref, item.answer)) correct++;
    }
  }
  return {
    precision: cited ? correct / cited : NaN,
    answered: replays.length ? answered / replays.length : NaN,
  };
}
