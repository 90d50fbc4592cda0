/** Whether a surface token looks like an identifier: `\section`, `max_connections`, `HttpClient`, `-O2`. */
export function isIdentifierLike(token: string): boolean {
  return (
    /^\\[A-Za-z]+/.test(token) ||
    /[_:=]/.test(token) ||
    /[a-z][A-Z]/.test(token) ||
    (/\d/.test(token) && /[A-Za-z]/.test(token)) ||
    /^[A-Za-z]+\.[A-Za-z]/.test(token)
  );
}

/** Raw whitespace-separated tokens with surrounding punctuation trimmed (keeps `\`, `_`, inner dots). */
export function surfaceTokens(text: string): string[] {
  return text
    .split(/\s+/u)
    .map((t) => t.replace(/^[("'“‘`«[{]+|[)"'”’`»\]},;:.!?]+$/gu, ''))
    .filter(Boolean);
}

/** `[12]` in source text would read as a citation marker: shown as `(12)` instead. */
export function escapeMarkers(text: string): string {
  return text.replace(/\[(\d+)\]/g, '($1)');
}

/** Collapses whitespace; keeps text otherwise as extracted. */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
