import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestApp, TestApp } from '../support/app';
import { infra, uniqueName } from '../support/infra';
import { CORPUS_DIR, pgOf, qaItem, searchIndexOf } from '../support/seed';
import { ASK, Caller, expectMarkersResolve, newCaller, norm } from './support';

const S3_KEYS = { accessKeyId: 'docqa-ask-key', secretAccessKey: 'docqa-ask-secret' };

/**
 * The whole path: PDFs in S3 -> POST /index -> Temporal workflows (extract, chunk, embed, index)
 * -> POST /ask and the document endpoints, with no seeding shortcut.
 */
describe('ask over documents indexed by the real pipeline', () => {
  let app: TestApp;
  let caller: Caller;

  beforeAll(async () => {
    app = await startTestApp({
      worker: true,
      env: { S3_ENDPOINT: infra().s3Endpoint, S3_FORCE_PATH_STYLE: 'true', S3_REGION: 'us-east-1' },
    });
    caller = await newCaller(app);
    const s3 = new S3Client({
      endpoint: infra().s3Endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { ...S3_KEYS }, // a copy: the SDK marks the object it is given ($source)
    });
    const bucket = uniqueName('docqa-ask').toLowerCase();
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    for (const f of ['geometry.pdf', 'ltnews35.pdf']) {
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `docs/${f}`,
          Body: fs.readFileSync(path.join(CORPUS_DIR, f)),
        }),
      );
    }
    s3.destroy();
    const started = await app.client.post(
      '/api/v1/document_proxy/index',
      { docSetName: 'latex', credentials: { ...S3_KEYS, bucket, prefix: 'docs/' } },
      { token: caller.token },
    );
    if (started.status !== 202) throw new Error(`POST /index: ${started.status} ${started.text}`);
    // 2 PDFs, ~160 chunks through the real MiniLM embedder: bounded by CPU load
    const deadline = Date.now() + 600_000;
    for (;;) {
      const p = await app.client.get('/api/v1/document_proxy/index/progress/latex', { token: caller.token });
      if (p.status === 200 && !p.body.isIndexing && p.body.completedCount === 2) break;
      if (Date.now() > deadline) throw new Error(`indexing did not finish: ${p.text}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }, 700_000);

  afterAll(() => app?.close());

  it('answers from the indexed PDFs with the right file and page', async () => {
    const item = qaItem('dev-014'); // load the old doc v2 -> ltnews35.pdf p5
    const res = await app.client.post(
      ASK,
      { question: item.question, docSetNames: ['latex'] },
      { token: caller.token },
    );
    expect(res.status).toBe(200);
    expect(norm(res.body.answer)).toContain(norm(item.answer));
    expect(res.body.citations[0]).toMatchObject({
      fileName: 'ltnews35.pdf',
      pageNumber: '5',
      sourceType: 'S3',
      sourceMetadata: { sourceId: expect.stringContaining('ltnews35.pdf') },
    });
    expectMarkersResolve(res.body.answer, res.body.citations);
  });

  it('indexes every chunk with its document context (title, identifying terms, section)', async () => {
    const db = await pgOf(app);
    const { rows } = await db.query(
      `SELECT id, file_name, title FROM documents WHERE docset_name = 'latex' ORDER BY file_name`,
    );
    await db.end();
    expect(rows.map((r) => [r.file_name, r.title])).toEqual([
      ['geometry.pdf', null], // no metadata title: the first heading stands in
      ['ltnews35.pdf', null],
    ]);
    const hits = await searchIndexOf(app).search({
      accountId: caller.accountId,
      docSetNames: ['latex'],
      text: 'geometry package paper size',
      limit: 50,
      minimumSimilarityScore: 0,
      mode: 'bm25',
    });
    const geometry = hits.filter((h) => h.chunk.fileName === 'geometry.pdf');
    expect(geometry.length).toBeGreaterThan(3);
    for (const h of geometry) {
      expect(h.chunk.documentTitle).toBe('The geometry package Hideo Umeki | geometry');
      expect(h.chunk.documentTerms).toMatch(/\bLATEX\b/);
    }
    // numbered headings such as "5.1 Paper size" become the chunks' sections
    expect(geometry.some((h) => /\b\d+(\.\d+)* [A-Z][a-z]/.test(h.chunk.section ?? ''))).toBe(true);
  });

  it('lists the indexed documents and the docset', async () => {
    const docs = await app.client.get('/api/v1/document_proxy/documents?docSetName=latex', {
      token: caller.token,
    });
    expect(docs.status).toBe(200);
    expect(docs.body.map((d: any) => [d.fileName, d.indexingStatus, d.source])).toEqual([
      ['geometry.pdf', 'COMPLETE', 'S3'],
      ['ltnews35.pdf', 'COMPLETE', 'S3'],
    ]);
    const sets = await app.client.get('/api/v1/document_proxy/documents/docsets', { token: caller.token });
    expect(sets.body).toEqual([
      expect.objectContaining({
        docSetName: 'latex',
        sourceTypes: ['S3'],
        documentCount: 2,
        completedCount: 2,
      }),
    ]);
    const meta = await app.client.get('/api/v1/document_proxy/documents/metadata/latex', {
      token: caller.token,
    });
    expect(meta.body).toMatchObject({
      pageCount: 42 + 8,
      fileTypes: [{ fileType: 'pdf', documentCount: 2 }],
    });
    expect(meta.body.chunkCount).toBeGreaterThan(50);
    expect(meta.body.summaries).toHaveLength(2);
  });
});
