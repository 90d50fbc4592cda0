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
