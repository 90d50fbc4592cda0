import type { S3Client } from '@aws-sdk/client-s3';
import type { TestApp } from '../support/app';
import {
  createBucket,
  documents,
  indexAndWait,
  newAccount,
  paths,
  putMany,
  s3,
  s3Credentials,
  searchIndexOf,
  startIndex,
  startIndexingApp,
  waitFor,
} from './support';

const FILES = 12;
const ASK = '/api/v1/document_proxy/ask';
const DOCSETS = '/api/v1/document_proxy/documents/docsets';

/** One small text file per document, each with a word no other file has. */
function corpus(version: string): Array<{ key: string; body: string }> {
  return Array.from({ length: FILES }, (_, i) => ({
    key: `docs/file-${String(i).padStart(2, '0')}.txt`,
    body: `Maintenance note ${i}, version ${version}. The ${word(i)} valve is checked every ${i + 2} days.`,
  }));
}
const word = (i: number) => `zorbium${String.fromCharCode(97 + i)}`;

/**
 * Issue 16 item 1: a docset never disappears while it is re-indexed (forced re-index, a re-sync
 * where every file changed, a cancelled re-index). Each document keeps serving its previous
 * chunks until its new version is indexed, then the versions swap: no stale and no duplicate
 * chunks are left. Real S3 server, Temporal and each search engine.
 */
describe.each([['elasticsearch'], ['embedded']] as const)('re-indexing a docset on %s', (engine) => {
  let app: TestApp;
  let client: S3Client;
  let bucket: string;
  let token: string;
  let accountId: number;
  const docSetName = `swap-${engine}`;
  const creds = () => s3Credentials(bucket, 'docs/');

  beforeAll(async () => {
    // One document at a time, so a run is slow enough to be watched in flight.
    app = await startIndexingApp({
      embeddedSearch: engine === 'embedded',
      env: { INDEXING_CONCURRENCY: '1' },
    });
    client = s3();
    bucket = await createBucket(client, 'swap');
    await putMany(client, bucket, corpus('one'));
    ({ token, accountId } = await newAccount(app));
    await indexAndWait(app, token, { docSetName, credentials: creds() });
    expect((await documents(app, accountId, docSetName)).map((d) => d.status)).toEqual(
      Array(FILES).fill('COMPLETE'),
    );
  }, 300_000);
  afterAll(async () => {
    client?.destroy();
    await app?.close();
  });

  /** Each file is one chunk: more means a stale or duplicate generation was left behind. */
  const chunksInIndex = async () => (await searchIndexOf(app).stats(accountId)).chunks;

  /** What a client sees of the docset right now. */
  async function observe(i: number) {
    const [listed, asked] = await Promise.all([
      app.client.get(DOCSETS, { token }),
      app.client.post(ASK, { question: `${word(i)} valve`, docSetNames: [docSetName] }, { token }),
    ]);
    return {
      listed:
        listed.status === 200 && listed.body.some((d: { docSetName: string }) => d.docSetName === docSetName),
      askStatus: asked.status,
      cited:
        asked.status === 200 &&
        asked.body.citations.some(
          (c: { fileName: string }) => c.fileName === `file-${String(i).padStart(2, '0')}.txt`,
        ),
    };
  }

  /**
   * Polls until the run closes, recording what a client saw at each poll (asserted afterwards, so a
   * failure never leaves a run open for the next test). `inFlight` counts polls that saw documents
   * not COMPLETE: the test watched the re-index itself, not only its end.
   */
  async function watchRun(): Promise<{
    inFlight: number;
    views: Array<Awaited<ReturnType<typeof observe>>>;
  }> {
    let inFlight = 0;
    const views: Array<Awaited<ReturnType<typeof observe>>> = [];
    for (let poll = 0; ; poll++) {
      const docs = await documents(app, accountId, docSetName);
      const open = (await app.client.get(paths.progress(docSetName), { token })).body.isIndexing as boolean;
      views.push(await observe(poll % FILES));
      if (docs.some((d) => d.status !== 'COMPLETE')) inFlight++;
      if (!open) return { inFlight, views };
    }
  }

  const always = { listed: true, askStatus: 200, cited: true };

  it('forced re-index: the docset stays listed and askable throughout, then the versions swap', async () => {
    expect(await chunksInIndex()).toBe(FILES);
    await startIndex(app, token, { docSetName, credentials: creds(), indexOptions: { forceReindex: true } });
    const { inFlight, views } = await watchRun();
    expect(inFlight).toBeGreaterThan(0);
    expect(views.filter((v) => !(v.listed && v.askStatus === 200 && v.cited))).toEqual([]);
    expect(views[0]).toEqual(always);
    const docs = await documents(app, accountId, docSetName);
    expect(docs.map((d) => d.status)).toEqual(Array(FILES).fill('COMPLETE'));
    // Each document's previous generation was deleted once its new one was indexed.
    expect(await chunksInIndex()).toBe(FILES);
  });

  it('a re-sync where every file changed serves the old text until each new version is in, then only the new', async () => {
    await putMany(client, bucket, corpus('two'));
    await startIndex(app, token, { docSetName, credentials: creds() });
    const { inFlight, views } = await watchRun();
    expect(inFlight).toBeGreaterThan(0);
    expect(views.filter((v) => !(v.listed && v.askStatus === 200 && v.cited))).toEqual([]);
    const hits = await searchIndexOf(app).search({
      accountId: accountId,
      docSetNames: [docSetName],
      text: 'version',
      limit: 100,
      minimumSimilarityScore: -1,
      mode: 'bm25',
    });
    expect(hits).toHaveLength(FILES);
    for (const h of hits) expect(h.chunk.text).toContain('version two');
    expect(await chunksInIndex()).toBe(FILES);
  });

  it('a cancelled forced re-index leaves the previous versions served and the docset in place', async () => {
    await startIndex(app, token, { docSetName, credentials: creds(), indexOptions: { forceReindex: true } });
    await waitFor(app, token, docSetName, (p) => p.completedCount < FILES, 60_000, 20);
    expect((await app.client.post(paths.cancel(docSetName), undefined, { token })).status).toBe(202);
    await waitFor(app, token, docSetName);
    const docs = await documents(app, accountId, docSetName);
    expect(docs.some((d) => d.status === 'CANCELLED')).toBe(true);
    for (let i = 0; i < FILES; i++)
      expect(await observe(i)).toEqual({ listed: true, askStatus: 200, cited: true });
    const summary = await app.client.get(paths.summary, { token });
    expect(summary.body.docSets).toEqual([expect.objectContaining({ docSetName, exists: true })]);
    // No chunks of the abandoned generation are left beside the served ones.
    expect(await chunksInIndex()).toBe(FILES);

    // The next run finishes the job.
    await indexAndWait(app, token, { docSetName, credentials: creds() });
    expect((await documents(app, accountId, docSetName)).map((d) => d.status)).toEqual(
      Array(FILES).fill('COMPLETE'),
    );
    expect(await chunksInIndex()).toBe(FILES);
  });

  it('the docset disappears only when its last document is removed', async () => {
    const res = await app.client.delete(paths.docsets, { docSetNames: [docSetName] }, { token });
    expect(res.status).toBe(200);
    expect((await observe(0)).listed).toBe(false);
    expect(await chunksInIndex()).toBe(0);
  });
});
