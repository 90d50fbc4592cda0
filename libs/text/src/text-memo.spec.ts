import { memoByText } from './text-memo';

describe('memoByText', () => {
  it('computes a text once and returns what the function gives for it', () => {
    const calls: string[] = [];
    const lengthOf = memoByText((t: string) => {
      calls.push(t);
      return { text: t, length: t.length, parts: t.split(' ') };
    }, 10);
    const a = lengthOf('one two');
    expect(a).toEqual({ text: 'one two', length: 7, parts: ['one', 'two'] });
    expect(lengthOf('one two')).toBe(a);
    expect(lengthOf('three')).toEqual({ text: 'three', length: 5, parts: ['three'] });
    expect(calls).toEqual(['one two', 'three']);
  });

  it('gives each text its own result, whoever asked for another text first', () => {
    // keyed by the text alone: a result never answers for another text (tenant data stays apart)
    const upper = memoByText((t: string) => [t.toUpperCase()], 10);
    expect(upper('account 1 secret')).toEqual(['ACCOUNT 1 SECRET']);
    expect(upper('account 2 text')).toEqual(['ACCOUNT 2 TEXT']);
    expect(upper('account 1 secret ')).toEqual(['ACCOUNT 1 SECRET ']);
  });

  it('keeps at most maxTexts texts, the least recently used leaving first', () => {
    const calls: string[] = [];
    const f = memoByText((t: string) => (calls.push(t), t.length), 2);
    f('a');
    f('bb');
    f('a'); // 'a' is now the most recently used
    f('ccc'); // evicts 'bb'
    f('a');
    f('bb');
    expect(calls).toEqual(['a', 'bb', 'ccc', 'bb']);
  });

  it('freezes a shared result so that no caller can change it for the next', () => {
    const f = memoByText((t: string) => ({ words: t.split(' ') }), 10);
    const r = f('x y');
    expect(() => (r.words as string[]).push('z')).toThrow(TypeError);
    expect(f('x y').words).toEqual(['x', 'y']);
  });
});
