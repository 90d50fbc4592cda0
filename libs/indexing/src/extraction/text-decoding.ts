import { DocumentRejectedError } from './document-rejected.error';

/**
 * Bytes of a text file (txt, md, csv, html) as a string: UTF-8 (BOM optional), UTF-16 with a BOM,
 * else Windows-1252. NUL bytes in the first 8 KiB mean binary content, which is rejected.
 */
export function decodeText(data: Buffer): string {
  if (data.length >= 2 && data[0] === 0xff && data[1] === 0xfe)
    return new TextDecoder('utf-16le').decode(data.subarray(2));
  if (data.length >= 2 && data[0] === 0xfe && data[1] === 0xff)
    return new TextDecoder('utf-16be').decode(data.subarray(2));
  if (data.subarray(0, 8192).includes(0))
    throw new DocumentRejectedError('UNSUPPORTED', 'The file has binary content, not text');
  const body =
    data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? data.subarray(3) : data;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return new TextDecoder('windows-1252').decode(body);
  }
}

/** Plain-text "pages": split on form feeds (pagination in text dumps), else one page. */
export function textPages(text: string): string[] {
  const normalised = text.replace(/\r\n?/g, '\n');
  return normalised.includes('\f') ? normalised.split('\f') : [normalised];
}
