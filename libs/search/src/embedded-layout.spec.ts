import { Float32, Int32, Int64, makeVector, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { plainRows } from './embedded-layout';

describe('plainRows', () => {
  // Two record batches, nulls, and the column types the engine returns (utf8, int32, int64, float32).
  const batch = (offset: number, n: number) =>
    new Table({
      id: vectorFromArray(
        Array.from({ length: n }, (_, i) => `doc-${offset + i}`),
        new Utf8(),
      ),
      section: vectorFromArray(
        Array.from({ length: n }, (_, i) =>
          (offset + i) % 3 === 0 ? null : `Section ${offset + i} — Größe`,
        ),
        new Utf8(),
      ),
      page_number: vectorFromArray(
        Array.from({ length: n }, (_, i) => ((offset + i) % 4 === 0 ? null : offset + i)),
        new Int32(),
      ),
      chunk_index: makeVector({
        type: new Int64(),
        data: BigInt64Array.from({ length: n }, (_, i) => BigInt(offset + i)),
      }),
      _score: vectorFromArray(
        Array.from({ length: n }, (_, i) => (offset + i) / 3),
        new Float32(),
      ),
    });
  const table = new Table([...batch(0, 5).batches, ...batch(5, 4).batches]);

  it("reads every row with the values of the engine's row objects", async () => {
    const rows = await plainRows<Record<string, unknown>>({ toArrow: async () => table });
    const expected = table.toArray().map((r) => {
      const o: Record<string, unknown> = {};
      for (const f of table.schema.fields) o[f.name] = r[f.name];
      return o;
    });
    expect(rows).toHaveLength(9);
    expect(rows).toEqual(expected);
    expect(rows[3]).toEqual({
      id: 'doc-3',
      section: null,
      page_number: 3,
      chunk_index: 3n,
      _score: Math.fround(1),
    });
    expect(rows[4].page_number).toBeNull();
  });

  it('gives no rows for an empty result', async () => {
    expect(await plainRows({ toArrow: async () => new Table() })).toEqual([]);
  });
});
