import { LRUCache } from 'lru-cache';

/**
 * `fn` memoised by its text argument in a bounded least-recently-used cache of `maxTexts` entries.
 * For pure analyses of a text (tokens, stems, sentence segments) that an ask repeats for every
 * passage it reads, although the passages of a docset seldom change: the same result without the
 * work. Keyed by the text alone, with nothing else in the value, a cached result holds no more
 * than what the text gives: a caller only ever gets the analysis of a text it passes in itself,
 * whichever account or docset put the same text in the cache first. The result is shared between
 * callers, so it is frozen (arrays and plain objects, one level deep): callers must not change it.
 */
export function memoByText<T extends NonNullable<unknown>>(
  fn: (text: string) => T,
  maxTexts: number,
): (text: string) => T {
  const cache = new LRUCache<string, T>({ max: maxTexts });
  return (text: string) => {
    let value = cache.get(text);
    if (value === undefined) {
      value = freezeShallow(fn(text));
      cache.set(text, value);
    }
    return value;
  };
}

function freezeShallow<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype) {
    for (const v of Object.values(value as object))
      if (
        Array.isArray(v) ||
        (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype)
      )
        Object.freeze(v);
    Object.freeze(value);
  }
  return value;
}
