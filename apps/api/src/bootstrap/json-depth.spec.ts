import { jsonDepth, MAX_JSON_DEPTH } from './json-depth';

describe('jsonDepth', () => {
  it('counts nesting of objects and arrays without recursion', () => {
    expect(jsonDepth('x')).toBe(0);
    expect(jsonDepth({ a: 1 })).toBe(1);
    expect(jsonDepth({ a: [{ b: [] }] })).toBe(4);
    expect(jsonDepth(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)))).toBe(MAX_JSON_DEPTH + 1);
  });
});
