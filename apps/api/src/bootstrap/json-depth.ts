import { hasLoneSurrogate } from '@docqa/text';

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

/**
 * Keys that class-transformer silently drops (its prototype-pollution guard), so the DTO
 * whitelist never sees them: they are refused here as the unknown fields they are.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

const SURROGATE = 'must be valid Unicode (it contains an unpaired surrogate)';

/**
 * The first field of a parsed JSON body that no surface accepts: a `__proto__` or `constructor`
 * key anywhere, or a string (or key) holding an unpaired UTF-16 surrogate (a valid JSON escape,
 * but not text: it has no UTF-8 form and cannot be stored). Paths are dotted, as in validation errors.
 */
export function rejectedField(value: unknown): { field: string; message: string } | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (hasLoneSurrogate(v)) return { field: path || 'body', message: `${path || 'body'} ${SURROGATE}` };
    } else if (v !== null && typeof v === 'object') {
      const children: Array<[unknown, string]> = [];
      for (const [k, child] of Object.entries(v as object)) {
        const field = path ? `${path}.${k}` : k;
        if (FORBIDDEN_KEYS.has(k)) return { field, message: `${field}: property ${k} should not exist` };
        if (hasLoneSurrogate(k)) return { field: path || 'body', message: `a field name ${SURROGATE}` };
        children.push([child, field]);
      }
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return undefined;
}
