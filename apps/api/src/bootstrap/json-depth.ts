/** Deepest JSON nesting accepted; deeper bodies overflow the stack of recursive validators (a 500). */
export const MAX_JSON_DEPTH = 64;

/** Nesting depth of a parsed JSON value, counted without recursion. */
export function jsonDepth(value: unknown, stopAt = MAX_JSON_DEPTH + 1): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max >= stopAt) return max;
    for (const child of Object.values(v as object)) stack.push([child, d + 1]);
  }
  return max;
}

/**
 * Whether a parsed JSON value or a URL holds a NUL character anywhere (keys included). Postgres
 * text cannot store NUL, so such input is refused at the edge with a 400 instead of failing deep
 * inside a query.
 */
export function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v as object)) {
        if (k.includes('\u0000')) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

export function urlContainsNul(url: string): boolean {
  return url.includes('%00') || url.includes('\u0000');
}
