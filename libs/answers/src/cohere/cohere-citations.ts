import type { Passage } from '../generation.port';

/** A Cohere citation reduced to what marker placement needs. */
export interface CitedSpan {
  /** End offset (exclusive) of the cited span in the answer text. */
  end: number;
  /** Passage numbers of its document sources, in source order. */
  passages: number[];
}

interface CohereCitationLike {
  end?: number;
  sources?: Array<{ type?: string; id?: string }>;
}

/**
 * Maps a Cohere citation to passage numbers. Documents are sent with `id` = the passage number;
 * ids Cohere generates itself (`doc:0`, `doc_0`) are positions in the documents list.
 */
export function citedSpan(c: CohereCitationLike, passages: readonly Passage[]): CitedSpan | undefined {
  if (typeof c.end !== 'number') return undefined;
  const ns: number[] = [];
  for (const s of c.sources ?? []) {
    if (s.type !== undefined && s.type !== 'document') continue;
    const id = s.id ?? '';
    let n: number | undefined;
    if (/^\d+$/.test(id)) n = Number(id);
    else {
      const m = /^doc[:_](\d+)/.exec(id);
      if (m) n = passages[Number(m[1])]?.n;
    }
    if (n !== undefined && passages.some((p) => p.n === n) && !ns.includes(n)) ns.push(n);
  }
  return ns.length ? { end: c.end, passages: ns } : undefined;
}

/** Bracketed numbers the model wrote itself would read as markers: shown as `(n)`. */
export function escapeModelMarkers(text: string): string {
  return text.replace(/\[(\d+)\]/g, '($1)');
}

/** Where a marker for a span ending at `end` goes: after closing punctuation that follows it. */
function markerPosition(text: string, end: number): number {
  let at = Math.min(Math.max(end, 0), text.length);
  while (at < text.length && /[.,;:!?)"'”’]/.test(text[at])) at++;
  return at;
}

function markers(ns: number[]): string {
  return ' ' + ns.map((n) => `[${n}]`).join('');
}

/** The answer with a ` [n]` marker after each cited span (exact offsets: the non-streamed answer). */
export function placeMarkers(text: string, spans: readonly CitedSpan[]): string {
  const escaped = escapeModelMarkers(text);
  const at = new Map<number, number[]>();
  for (const s of spans) {
    const pos = markerPosition(escaped, s.end);
    const list = at.get(pos) ?? [];
    for (const n of s.passages) if (!list.includes(n)) list.push(n);
    at.set(pos, list);
  }
  let out = '';
  let last = 0;
  for (const pos of [...at.keys()].sort((a, b) => a - b)) {
    out += escaped.slice(last, pos) + markers(at.get(pos) as number[]);
    last = pos;
  }
  return out + escaped.slice(last);
}

/**
 * Streaming marker placement. Text is released up to the last sentence end seen, so a citation
 * that arrives while its sentence is still held back gets its marker at the exact place; one for
 * text already released gets its marker at the current end of the released text.
 */
export class StreamingMarkerPlacer {
  private text = '';
  private released = 0;
  private readonly pending = new Map<number, number[]>();
  private late: number[] = [];

  /** Adds model text; returns what may be released now. */
  pushText(delta: string): string {
    this.text += delta;
    const boundary = lastSentenceEnd(this.text, this.released);
    return boundary > this.released ? this.release(boundary) : '';
  }

  /** Records a citation; returns text to release at once (a marker for already released text). */
  pushCitation(span: CitedSpan): string {
    if (span.end <= this.released) {
      for (const n of span.passages) if (!this.late.includes(n)) this.late.push(n);
      return '';
    }
    const pos = span.end;
    const list = this.pending.get(pos) ?? [];
    for (const n of span.passages) if (!list.includes(n)) list.push(n);
    this.pending.set(pos, list);
    return '';
  }

  /** Everything still held back, with its markers. */
  flush(): string {
    return this.release(this.text.length, true);
  }

  private release(upto: number, final = false): string {
    let out = '';
    if (this.late.length) {
      out += markers(this.late);
      this.late = [];
    }
    let from = this.released;
    const positions = [...this.pending.keys()].filter((p) => p <= upto || final).sort((a, b) => a - b);
    for (const p of positions) {
      const pos = Math.min(Math.max(markerPosition(this.text, p), from), upto);
      out += escapeModelMarkers(this.text.slice(from, pos)) + markers(this.pending.get(p) as number[]);
      this.pending.delete(p);
      from = pos;
    }
    out += escapeModelMarkers(this.text.slice(from, upto));
    this.released = upto;
    return out;
  }
}

/** Offset just after the last `. ` / `? ` / `! ` / newline at or after `from`, or `from`. */
function lastSentenceEnd(text: string, from: number): number {
  for (let i = text.length - 1; i >= from; i--) {
    const c = text[i];
    if (c === '\n') return i + 1;
    if (/\s/.test(c) && i > 0 && /[.!?:]/.test(text[i - 1])) return i;
  }
  return from;
}
