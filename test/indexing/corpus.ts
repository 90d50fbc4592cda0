import * as path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import type { TestApp } from '../support/app';
import {
  answerableQa,
  corpusFiles,
  CORPUS_DIR,
  createBucket,
  documents,
  indexAndWait,
  newAccount,
  normalisedAnswer,
  paths,
  pdfinfoPages,
  runRow,
  s3,
  s3Credentials,
  searchIndexOf,
  startIndexingApp,
  textVariants,
  uploadCorpus,
} from './support';

/**
 * The whole dev corpus (16 PDFs, 935 pages) from the local S3 server through the Temporal
 * pipeline into one search engine, indexed once and shared by every assertion.
 */
export function describeCorpus(engine: 'elasticsearch' | 'embedded'): void {
  describe(`dev corpus from S3 into ${engine}`, () => {
    let app: TestApp;
    let client: S3Client;
    let token: string;
    let accountId: number;
    let bucket: string;
    let firstJob: string;
    let indexSeconds: number;
    const docSetName = `corpus-${engine}`;
    const files = corpusFiles();

    beforeAll(async () => {
      app = await startIndexingApp({ embeddedSearch: engine === 'embedded' });
      client = s3();
      bucket = await createBucket(client, 'corpus');
      await uploadCorpus(client, bucket, 'dev/');
      ({ token, accountId } = await newAccount(app));
      const t0 = Date.now();
      firstJob = await indexAndWait(
        app,
        token,
        { docSetName, credentials: s3Credentials(bucket, 'dev/') },
        600_000,
      );
      indexSeconds = (Date.now() - t0) / 1000;
    }, 700_000);
    afterAll(async () => {
      client?.destroy();
      await app?.close();
    });

    it('indexes every document COMPLETE with the page count pdfinfo reports', async () => {
      const docs = await documents(app, accountId, docSetName);
      expect(docs.map((d) => d.file_name)).toEqual(files);
      for (const d of docs) {
        expect({ file: d.file_name, status: d.status, error: d.error }).toEqual({
          file: d.file_name,
          status: 'COMPLETE',
          error: null,
        });
        expect({ file: d.file_name, pages: d.page_count }).toEqual({
          file: d.file_name,
          pages: pdfinfoPages(path.join(CORPUS_DIR, d.file_name)),
        });
      }
      expect(docs.reduce((a, d) => a + (d.page_count ?? 0), 0)).toBe(935);
      const run = await runRow(app, firstJob);
      expect(run).toMatchObject({ status: 'COMPLETED' });
      expect(run.counters).toMatchObject({ listed: 16, new: 16, completed: 16, failed: 0 });
      // Every chunk written once: the index holds exactly the chunks the documents report.
      const stats = await searchIndexOf(app).stats(accountId);
      expect(stats.chunks).toBe(docs.reduce((a, d) => a + (d.chunk_count ?? 0), 0));
      console.log(
        `[corpus:${engine}] 16 documents, 935 pages, ${stats.chunks} chunks indexed in ${indexSeconds.toFixed(1)} s`,
      );
    });

    it('has, for every answerable QA item, a chunk on the stated page that contains the answer', async () => {
      const search = searchIndexOf(app);
      const misses: string[] = [];
      for (const q of answerableQa()) {
        const pages = new Set([String(q.page), ...(q.alsoOnPages ?? []).map(String)]);
        const hits = await search.search({
          accountId: accountId,
          docSetNames: [docSetName],
          text: q.answer,
          limit: 100,
          minimumSimilarityScore: -1,
          mode: 'bm25',
        });
        const answer = normalisedAnswer(q.answer);
        const found = hits.some(
          (h) =>
            h.chunk.fileName === q.fileName &&
            pages.has(h.chunk.pageNumber) &&
            textVariants(h.chunk.text).some((v) => v.includes(answer)),
        );
        if (!found) misses.push(`${q.id} ${q.fileName} p${q.page}: ${JSON.stringify(q.answer)}`);
      }
      expect(misses).toEqual([]);
    });

    it('a second run with nothing changed indexes nothing', async () => {
      const res = await app.client.post(
        paths.index,
        { docSetName, credentials: s3Credentials(bucket, 'dev/'), async: false },
        { token },
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'COMPLETED' });
      expect(res.body.counts).toMatchObject({
        listed: 16,
        new: 0,
        changed: 0,
        unchanged: 16,
        removed: 0,
        completed: 0,
      });
    });

    it('check-source counts the supported files and the existing documents', async () => {
      const res = await app.client.post(
        paths.checkSource,
        { docSetName, credentials: s3Credentials(bucket, 'dev/') },
        { token },
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        sourceFileCount: 16,
        existingDocumentCount: 16,
        message: expect.any(String),
      });
    });
  });
}
