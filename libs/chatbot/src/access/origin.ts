/**
 * Origins as browsers send them: `scheme://host[:port]`, lower-case, default ports dropped
 * (what `new URL(x).origin` gives). The allowed origin of a key is stored in this form, so the
 * comparison is plain string equality.
 */

/** Normalises a configured origin; null when it is not an http(s) origin without path or query. */
export function normalizeOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password || url.search || url.hash) return null;
  if (url.pathname !== '/' && url.pathname !== '') return null;
  return url.origin;
}

/**
 * The origin a request comes from: the `Origin` header, else the origin of `Referer`. Null when
 * neither gives one (no header, `Origin: null` from a sandboxed or file page, or a malformed value).
 */
export function requestOrigin(
  origin: string | string[] | undefined,
  referer: string | string[] | undefined,
): string | null {
  const o = typeof origin === 'string' ? origin.trim() : undefined;
  if (o && o !== 'null') return originOf(o);
  const r = typeof referer === 'string' ? referer.trim() : undefined;
  if (r) return originOf(r);
  return null;
}

function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return url.origin;
  } catch {
    return null;
  }
}
