// Issue #13's first recipe from the client's side: poll progress until `isIndexing: false`, then
// send the next POST /index at once. The run records its outcome a moment before its workflow
// closes; a request landing in that moment must start the new run (202), not be refused (409).
import type { TestApp } from '../support/app';
import {
  createBucket,
  newAccount,
  paths,
  progress,
  putMany,
  s3,
  s3Credentials,
  startIndexingApp,
  waitFor,
} from './support';

describe('re-index sent the moment a run ends (issue #13)', () => {
  let app: TestApp;
  let token: string;
  let bucket: string;

  beforeAll(async () => {
    app = await startIndexingApp();
    ({ token } = await newAccount(app));
    const client = s3();
    bucket = await createBucket(client, 'at-once');
    await putMany(
      client,
      bucket,
      Array.from({ length: 3 }, (_, i) => ({
        key: `n${i}.txt`,
        body: `Note ${i} about the night ferry timetable.`,
      })),
    );
  });
  afterAll(() => app?.close());

  it('starts the next run, after a completed and after a cancelled one', async () => {
    const body = (force: boolean) => ({
      docSetName: 'ferry',
      credentials: s3Credentials(bucket),
      indexOptions: { forceReindex: force },
    });
    const statuses: number[] = [];
    for (let round = 0; round < 6; round++) {
      const res = await app.client.post(paths.index, body(true), { token });
      statuses.push(res.status);
      if (res.status !== 202) break;
      if (round % 2 === 1) await app.client.post(paths.cancel('ferry'), undefined, { token });
      // As a client would: poll until the run is no longer open, then go on at once.
      await waitFor(app, token, 'ferry', (p) => !p.isIndexing, 120_000, 20);
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 202]);
    const p = await waitFor(app, token, 'ferry');
    expect(p).toMatchObject({ indexingCount: 0, isIndexing: false });
    expect((await progress(app, token, 'ferry')).completedCount + p.pendingCount).toBe(3);
  });
});
