import { jsonDepth, MAX_JSON_DEPTH } from './json-depth';

describe('jsonDepth', () => {
  it('counts nesting of objects and arrays without recursion', () => {
    expect(jsonDepth('x')).toBe(0);
    expect(jsonDepth({ a: 1 })).toBe(1);
    expect(jsonDepth({ a: [{ b: [] }] })).toBe(4);
    expect(jsonDepth(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)))).toBe(MAX_JSON_DEPTH + 1);
  });
});

describe('containsNul / urlContainsNul', () => {
  it('finds NUL in nested strings and keys, not elsewhere', () => {
    const { containsNul, urlContainsNul } = jest.requireActual('./json-depth');
    expect(containsNul({ a: ['x', { b: 'y\u0000' }] })).toBe(true);
    expect(containsNul({ ['k\u0000']: 1 })).toBe(true);
    expect(containsNul({ a: ['x', { b: 'y' }], n: 1, z: null })).toBe(false);
    expect(containsNul(undefined)).toBe(false);
    expect(urlContainsNul('/api/v1/document_proxy/documents?docSetName=a%00b')).toBe(true);
    expect(urlContainsNul('/api/v1/document_proxy/documents?docSetName=a%2500')).toBe(false);
  });
});

describe('rejectedField', () => {
  const { rejectedField } = jest.requireActual('./json-depth');

  it('names __proto__ and constructor keys at any depth, in document order', () => {
    expect(rejectedField(JSON.parse('{"a":1,"__proto__":{"x":1}}'))).toMatchObject({ field: '__proto__' });
    expect(rejectedField(JSON.parse('{"config":{"constructor":1}}'))).toMatchObject({
      field: 'config.constructor',
    });
    expect(rejectedField(JSON.parse('{"m":[{"ok":1},{"__proto__":2}]}'))).toMatchObject({
      field: 'm.1.__proto__',
    });
  });

  it('names strings with an unpaired surrogate, and accepts paired ones', () => {
    expect(rejectedField(JSON.parse('{"docSetName":"\\ud800x"}'))).toMatchObject({ field: 'docSetName' });
    expect(rejectedField(JSON.parse('{"q":["ok","\\udc00"]}'))).toMatchObject({ field: 'q.1' });
    expect(rejectedField(JSON.parse('{"q":"\\ud83d\\udcda books","constructorName":"x"}'))).toBeUndefined();
    expect(rejectedField('plain')).toBeUndefined();
  });
});
