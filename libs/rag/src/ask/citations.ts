import type { StoredChunk } from '@docqa/search';
import type { Citation, PassageSource } from './ask.types';

/** The file, page and source of a chunk: one mapping for citations and /search results. */
export function passageSource(chunk: StoredChunk): PassageSource {
  return {
    fileName: chunk.fileName,
    pageNumber: String(chunk.pageNumber),
    sourceType: chunk.sourceType,
    sourceMetadata: {
      sourceId: chunk.sourceId,
      documentId: chunk.documentId,
      docSetName: chunk.docSetName,
    },
  };
}

/** A trailing `[` or `[12` that may be the start of a marker split across two deltas. */
const PARTIAL_MARKER = /\[\d{0,6}$/;
const MARKER = /\[(\d+)\]/g;

/**
 * Turns a generator's markers (`[n]` = passage n) into the answer's markers (`[k]` = citation k),
 * while the text streams. Citations are deduplicated by document and page and numbered in order
 * of first use; a marker naming no passage is dropped, so every marker in the answer resolves to a
 * citation. A marker repeated right after itself (two passages of one page) is written once.
 */
export class CitationTracker {
  private pending = '';
  private answer = '';
  private readonly byKey = new Map<string, Citation>();
  private readonly list: Citation[] = [];

  /** `passages[n - 1]` is the chunk of passage n. */
  constructor(private readonly passages: readonly StoredChunk[]) {}

  /** Feeds generator text; returns the answer text that can be sent now. */
  push(text: string): string {
    this.pending += text;
    const m = PARTIAL_MARKER.exec(this.pending);
    const cut = m ? m.index : this.pending.length;
    const ready = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    return this.emit(ready);
  }

  /** The rest of the text (a held-back partial marker is plain text after all). */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return this.emit(rest);
  }

  /** Everything emitted so far: the concatenation of push/flush results. */
  get text(): string {
    return this.answer;
  }

  citations(): Citation[] {
    return [...this.list];
  }

  private emit(s: string): string {
    if (!s) return '';
    let out = s.replace(MARKER, (_m, digits: string) => {
      const chunk = this.passages[Number(digits) - 1];
      if (!chunk) return '';
      return `[${this.citationFor(chunk).index}]`;
    });
    out = out.replace(/(\[\d+\])(?:\s*\1)+/g, '$1');
    // A repeat across two deltas: the previous text ended with the same marker.
    const last = /(\[\d+\])\s*$/.exec(this.answer)?.[1];
    if (last && out.trimStart().startsWith(last)) out = out.trimStart().slice(last.length);
    this.answer += out;
    return out;
  }

  private citationFor(chunk: StoredChunk): Citation {
    const key = `${chunk.documentId}\u0000${chunk.pageNumber}`;
    let c = this.byKey.get(key);
    if (!c) {
      c = { index: this.list.length + 1, ...passageSource(chunk) };
      this.byKey.set(key, c);
      this.list.push(c);
    }
    return c;
  }
}
