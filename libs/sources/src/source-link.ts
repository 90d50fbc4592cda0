/**
 * The link back to a cited file in its source (SharePoint or Drive `webUrl` from the document's
 * source metadata), at the cited page for PDFs (`#page=N`, which browsers' PDF viewers honour).
 * Null when the source has no web URL (S3: the chatbot serves those through a signed link).
 */
export function sourceWebLink(
  metadata: { webUrl?: unknown } | null | undefined,
  fileName: string,
  pageNumber?: string | number | null,
): string | null {
  const url = typeof metadata?.webUrl === 'string' ? metadata.webUrl : null;
  if (!url || !/^https?:\/\//i.test(url)) return null;
  const page = pageNumber === undefined || pageNumber === null ? '' : String(pageNumber);
  return /\.pdf$/i.test(fileName) && /^[1-9]\d*$/.test(page)
    ? `${url.replace(/#.*$/, '')}#page=${page}`
    : url;
}
