import { clsPool } from './pooling';

describe('CLS pooling (bge-small-en-v1.5)', () => {
  it("takes each text's first token, L2-normalised, and ignores the other tokens and padding", () => {
    // batch 2, length 3, dims 2: [CLS] states (3,4) and (0,-2); later tokens must not count
    const hidden = Float32Array.from([3, 4, 100, 100, 7, 7, 0, -2, 5, 5, 0, 0]);
    const out = clsPool(hidden, 2, 3, 2);
    expect(Array.from(out)).toEqual([0.6, 0.8, 0, -1].map((x) => expect.closeTo(x, 6)));
  });

  it('leaves an all-zero state at zero instead of dividing by zero', () => {
    expect(Array.from(clsPool(new Float32Array(4), 1, 2, 2))).toEqual([0, 0]);
  });

  it('runs from its source text alone (the inference thread evaluates it)', () => {
    const fromSource = new Function(`${clsPool.toString()}; return clsPool;`)() as typeof clsPool;
    expect(Array.from(fromSource(Float32Array.from([0, 2, 9, 9]), 1, 2, 2))).toEqual([0, 1]);
  });
});
