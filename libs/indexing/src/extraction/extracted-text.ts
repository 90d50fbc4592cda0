/**
 * Control characters that text extraction can yield (a PDF's text layer with U+0000, a slide's
 * vertical tab for a soft line break, C1 controls from a mis-decoded font). Postgres text cannot
 * hold U+0000 (`invalid byte sequence for encoding "UTF8": 0x00`), and none of them is text a
 * reader sees. Tab, line feed and carriage return are kept; vertical tab and form feed become
 * line feeds (layout breaks, not characters).
 */
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex -- vertical tab and form feed
const LAYOUT_BREAK = /[\u000b\u000c]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The one cleaning of extracted text before anything is stored or indexed (pages, title, and
 * through them the summary and chunks; a rejection's reason): controls removed, unpaired UTF-16
 * surrogates replaced by U+FFFD (Postgres rejects them as invalid UTF-8).
 */
export function cleanExtractedText(s: string): string {
  return s.replace(LAYOUT_BREAK, '\n').replace(CONTROL, '').replace(LONE_SURROGATE, '\ufffd');
}
