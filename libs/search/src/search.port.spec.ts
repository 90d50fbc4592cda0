import { chunkId, deleteGenerationInBatches } from './search.port';

describe('deleteGenerationInBatches', () => {
  it('deletes every id of one generation, in batches of 1000, and sums what the engine deleted', async () => {
    const calls: string[][] = [];
    const deleted = await deleteGenerationInBatches('doc', 3, 2500, async (ids) => {
      calls.push(ids);
      return ids.length - 1;
    });
    expect(calls.map((c) => c.length)).toEqual([1000, 1000, 500]);
    expect(calls.flat()).toEqual(Array.from({ length: 2500 }, (_, i) => chunkId('doc', i, 3)));
    expect(deleted).toBe(2497);
  });

  it('makes no call for a generation without chunks', async () => {
    const deleteIds = jest.fn(async () => 0);
    expect(await deleteGenerationInBatches('doc', 1, 0, deleteIds)).toBe(0);
    expect(deleteIds).not.toHaveBeenCalled();
  });
});
