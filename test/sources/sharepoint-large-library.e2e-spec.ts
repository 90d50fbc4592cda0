import { indexLargeLibrary } from './large-library';

/**
 * A SharePoint library through the real Temporal dev server, kept lean for the suite (300 tiny
 * files, 100 children per workflow run so the docset workflow continues-as-new at least twice).
 * The 10,000-file version is the benchmark (npm run bench:sharepoint, docs/benchmarks/sharepoint.md):
 * on the 2-core CI machine it runs for far longer than the suite's time budget allows.
 */
describe('SharePoint large library (Temporal continue-as-new)', () => {
  it('indexes every file exactly once with a bounded history per run', async () => {
    const files = 300;
    const r = await indexLargeLibrary({ files, folders: 3, window: 32, childrenPerRun: 100 });
    expect(r.runStatus).toBe('COMPLETED');
    expect(r.statusCounts).toEqual({ COMPLETE: files });
    expect(r.distinctSourceIds).toBe(files);
    expect(r.counters).toMatchObject({
      listed: files,
      new: files,
      completed: files,
      failed: 0,
      cancelled: 0,
    });
    // One execution per 100 children (plus the one that lists and plans): history stays bounded.
    expect(r.runs).toBeGreaterThanOrEqual(3);
    expect(r.maxHistoryLength).toBeLessThan(2500);
  }, 900_000);
});
