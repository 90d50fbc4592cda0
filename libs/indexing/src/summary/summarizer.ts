import { Injectable } from '@nestjs/common';

/** Model name of the built-in extractive summariser. */
export const LOCAL_SUMMARY_MODEL = 'local';

const MAX_SUMMARY = 600;
const MIN_SENTENCE = 20;

/**
 * Per-document summary stored in documents.summary. The local provider takes the lead sentences
 * of the document (the first sentences with real content, up to about 600 characters). A request's
 * `summaryModel` names the model; until a hosted summariser exists every name uses this provider.
 */
@Injectable()
export class DocumentSummarizer {
  summarize(pages: readonly string[], _model: string = LOCAL_SUMMARY_MODEL): string | null {
    let head = '';
    for (const p of pages) {
      head += ` ${p}`;
      if (head.length > 6000) break;
    }
    const flat = head.replace(/\s+/g, ' ').trim();
    if (!flat) return null;
    const sentences = flat.split(/(?<=[.!?])\s+(?=[A-Z0-9"'(\u00c0-\u024f])/);
    let out = '';
    for (const s of sentences) {
      if (s.length < MIN_SENTENCE && !out) continue;
      const next = out ? `${out} ${s}` : s;
      if (next.length > MAX_SUMMARY) {
        if (!out) out = `${s.slice(0, MAX_SUMMARY - 1).trimEnd()}…`;
        break;
      }
      out = next;
      if (out.length >= MAX_SUMMARY / 2 && /[.!?]$/.test(out)) break;
    }
    return out || flat.slice(0, MAX_SUMMARY);
  }
}
