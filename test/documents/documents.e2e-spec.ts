import { randomUUID } from 'node:crypto';
import { Caller, newCaller, restrictedToken } from '../ask/support';
import { startTestApp, TestApp } from '../support/app';
import { pgOf, SeededDocument, seedDocuments } from '../support/seed';

const P = '/api/v1/document_proxy';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DOCUMENT_KEYS = ['createdAt', 'docSetName', 'fileName', 'id', 'indexingStatus', 'source', 'updatedAt'];

/** The Document API's document endpoints, scoped to the caller (embedded search engine). */
describe('Document API: documents', () => {
  let app: TestApp;
  let alice: Caller;
  let bob: Caller;
  let fresh: Caller;
  let aliceDocs: SeededDocument[];
  let bobDocs: SeededDocument[];

  const get = (path: string, token: string) => app.client.get(`${P}${path}`, { token });
  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

  beforeAll(async () => {
    app = await startTestApp({ embeddedSearch: true });
    [alice, bob, fresh] = [await newCaller(app), await newCaller(app), await newCaller(app)];
    aliceDocs = await seedDocuments(app, alice.accountId, [
      {
        docSetName: 'manuals',
        fileName: 'b-guide.pdf',
        pages: ['Guide page one.', 'Guide page two.'],
        summary: 'A guide.',
        createdAt: minutesAgo(50),
      },
      {
        docSetName: 'manuals',
        fileName: 'a-intro.pdf',
        pages: ['Intro text.'],
        summary: 'An intro.',
        createdAt: minutesAgo(40),
      },
      {
        docSetName: 'manuals',
        fileName: 'c-broken.pdf',
        pages: ['x'],
        status: 'ERROR',
        createdAt: minutesAgo(30),
      },
      {
        docSetName: 'manuals',
        fileName: 'notes.docx',
        pages: ['Docx notes.'],
        sourceType: 'SHAREPOINT',
        createdAt: minutesAgo(20),
      },
      {
        docSetName: 'policies',
        fileName: 'travel.pdf',
        pages: ['Travel policy.'],
        createdAt: minutesAgo(10),
      },
      {
        docSetName: 'first-run',
        fileName: 'pending.pdf',
        pages: ['later'],
        status: 'PENDING',
        createdAt: minutesAgo(5),
      },
    ]);
    // Bob: the same docset name as Alice, and more recent documents than all of hers.
    bobDocs = await seedDocuments(
      app,
      bob.accountId,
      Array.from({ length: 30 }, (_, i) => ({
        docSetName: 'manuals',
        fileName: `bob-${String(i).padStart(2, '0')}.pdf`,
        pages: [`Bob document ${i}.`],
        createdAt: minutesAgo(1 - i / 100),
      })),
    );
  });

  afterAll(() => app?.close());

  describe('GET /documents?docSetName=', () => {
    it("lists the docset's documents (any status) by file name, with the spec's fields", async () => {
      const res = await get('/documents?docSetName=manuals', alice.token);
      expect(res.status).toBe(200);
      expect(res.body.map((d: any) => d.fileName)).toEqual([
        'a-intro.pdf',
        'b-guide.pdf',
        'c-broken.pdf',
        'notes.docx',
      ]);
      for (const d of res.body) {
        expect(Object.keys(d).sort()).toEqual(DOCUMENT_KEYS);
        expect(d.createdAt).toMatch(ISO);
        expect(d.updatedAt).toMatch(ISO);
        expect(d.docSetName).toBe('manuals');
      }
      expect(res.body.find((d: any) => d.fileName === 'notes.docx')).toMatchObject({
        source: 'SHAREPOINT',
        indexingStatus: 'COMPLETE',
      });
      expect(res.body.find((d: any) => d.fileName === 'c-broken.pdf').indexingStatus).toBe('ERROR');
      // Bob's docset of the same name is his alone.
      const bobs = await get('/documents?docSetName=manuals', bob.token);
      expect(bobs.body).toHaveLength(30);
      expect(bobs.body.every((d: any) => d.fileName.startsWith('bob-'))).toBe(true);
    });

    it('lists a docset whose first run has no COMPLETE document yet', async () => {
      const res = await get('/documents?docSetName=first-run', alice.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        expect.objectContaining({ fileName: 'pending.pdf', indexingStatus: 'PENDING' }),
      ]);
    });

    it('pages with limit/offset', async () => {
      const res = await get('/documents?docSetName=manuals&limit=2&offset=1', alice.token);
      expect(res.body.map((d: any) => d.fileName)).toEqual(['b-guide.pdf', 'c-broken.pdf']);
    });

    it("403 for a docset that is not the caller's (unknown, or only another account's)", async () => {
      for (const name of ['nope', 'policies']) {
        const res = await get(`/documents?docSetName=${name}`, name === 'policies' ? bob.token : alice.token);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ errorCode: 'FORBIDDEN', message: expect.any(String) });
      }
    });

    it('400 without docSetName or with a bad page size; 401 without a token', async () => {
      for (const q of ['', '?docSetName=', '?docSetName=manuals&limit=0', '?docSetName=manuals&limit=x']) {
        const res = await get(`/documents${q}`, alice.token);
        expect(res.status).toBe(400);
        expect(res.body.errorCode).toBe('VALIDATION_ERROR');
        expect(['docSetName', 'limit']).toContain(res.body.field);
      }
      expect((await app.client.get(`${P}/documents?docSetName=manuals`)).status).toBe(401);
    });
  });

  describe('GET /documents/recent', () => {
    it("returns the caller's newest documents first, default 20, filtered before the limit", async () => {
      const res = await get('/documents/recent', alice.token);
      expect(res.status).toBe(200);
      expect(res.body.map((d: any) => d.fileName)).toEqual([
        'pending.pdf',
        'travel.pdf',
        'notes.docx',
        'c-broken.pdf',
        'a-intro.pdf',
        'b-guide.pdf',
      ]);
      // Bob's 30 are newer than all of Alice's, yet limit=2 still gives Alice 2 of hers.
      const two = await get('/documents/recent?limit=2', alice.token);
      expect(two.body.map((d: any) => d.fileName)).toEqual(['pending.pdf', 'travel.pdf']);
      const bobs = await get('/documents/recent', bob.token);
      expect(bobs.body).toHaveLength(20);
      expect(bobs.body[0].fileName).toBe('bob-29.pdf');
      const all = await get('/documents/recent?limit=100', bob.token);
      expect(all.body).toHaveLength(30);
    });

    it('400 outside 1..100', async () => {
      for (const limit of ['0', '101', '-1', '2.5', 'ten']) {
        const res = await get(`/documents/recent?limit=${limit}`, alice.token);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field: 'limit' });
      }
    });

    it('is [] for a new account', async () => {
      const res = await get('/documents/recent', fresh.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    });
  });

  describe('GET /documents/docsets', () => {
    it('lists the docsets that exist (a COMPLETE document), with source types and counts', async () => {
      const res = await get('/documents/docsets', alice.token);
      expect(res.status).toBe(200);
      expect(res.body.map((d: any) => d.docSetName)).toEqual(['manuals', 'policies']);
      expect(res.body[0]).toEqual({
        docSetName: 'manuals',
        sourceTypes: ['S3', 'SHAREPOINT'],
        documentCount: 4,
        completedCount: 3,
        pendingCount: 0,
        indexingCount: 0,
        errorCount: 1,
        cancelledCount: 0,
        pageCount: 4,
        chunkCount: 4, // b-guide.pdf has two pages
        lastIndexedAt: expect.stringMatching(ISO),
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
    });

    it('is [] for a new account', async () => {
      const res = await get('/documents/docsets', fresh.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    });
  });

  describe('GET /documents/metadata/{docSetName}', () => {
    it('aggregates one docset', async () => {
      const res = await get('/documents/metadata/manuals', alice.token);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        docSetName: 'manuals',
        documentCount: 4,
        completedCount: 3,
        errorCount: 1,
        statusCounts: { PENDING: 0, INDEXING: 0, COMPLETE: 3, ERROR: 1, CANCELLED: 0 },
        pageCount: 4,
        chunkCount: 4, // b-guide.pdf has two pages
        totalBytes: expect.any(Number),
        fileTypes: [
          { fileType: 'pdf', documentCount: 3 },
          { fileType: 'docx', documentCount: 1 },
        ],
        sources: [
          { sourceType: 'S3', documentCount: 3 },
          { sourceType: 'SHAREPOINT', documentCount: 1 },
        ],
        summaryCount: 2,
        summaries: [
          { documentId: aliceDocs[1].id, fileName: 'a-intro.pdf', summary: 'An intro.' },
          { documentId: aliceDocs[0].id, fileName: 'b-guide.pdf', summary: 'A guide.' },
        ],
      });
      expect(res.body.lastIndexedAt).toMatch(ISO);
      expect(res.body.firstIndexedAt).toMatch(ISO);
    });

    it("403 for a docset that is not the caller's, or outside a restricted token", async () => {
      expect((await get('/documents/metadata/policies', bob.token)).status).toBe(403);
      expect((await get('/documents/metadata/nope', alice.token)).status).toBe(403);
      const limited = await restrictedToken(app, alice, ['policies']);
      const res = await get('/documents/metadata/manuals', limited);
      expect(res.status).toBe(403);
      expect(res.body.errorCode).toBe('FORBIDDEN');
      expect((await get('/documents/metadata/policies', limited)).status).toBe(200);
    });
  });

  describe('GET /documents/{id}', () => {
    it("returns one of the caller's documents", async () => {
      const res = await get(`/documents/${aliceDocs[4].id}`, alice.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: aliceDocs[4].id,
        fileName: 'travel.pdf',
        docSetName: 'policies',
        source: 'S3',
        indexingStatus: 'COMPLETE',
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
    });

    it("404 for an unknown id, another account's document, or a non-uuid id", async () => {
      for (const [id, token] of [
        [randomUUID(), alice.token],
        [bobDocs[0].id, alice.token],
        [aliceDocs[0].id, bob.token],
        ['not-a-uuid', alice.token],
      ]) {
        const res = await get(`/documents/${id}`, token);
        expect(res.status).toBe(404);
        expect(res.body.errorCode).toBe('NOT_FOUND');
        expect(res.text).not.toContain('b-guide');
      }
    });

    it("404 for a document outside a restricted token's docsets", async () => {
      const limited = await restrictedToken(app, alice, ['policies']);
      expect((await get(`/documents/${aliceDocs[0].id}`, limited)).status).toBe(404);
      expect((await get(`/documents/${aliceDocs[4].id}`, limited)).status).toBe(200);
      const recent = await get('/documents/recent', limited);
      expect(recent.body.map((d: any) => d.fileName)).toEqual(['travel.pdf']);
      const sets = await get('/documents/docsets', limited);
      expect(sets.body.map((d: any) => d.docSetName)).toEqual(['policies']);
    });

    it("does not shadow documents/indexing-summary (indexing's endpoint)", async () => {
      const res = await get('/documents/indexing-summary', alice.token);
      expect(res.status).toBe(200);
      expect(res.body.errorCode).toBeUndefined();
    });
  });

  it('reflects a deleted document at once', async () => {
    const db = await pgOf(app);
    try {
      await db.query('DELETE FROM documents WHERE id = $1', [aliceDocs[4].id]);
    } finally {
      await db.end();
    }
    expect((await get(`/documents/${aliceDocs[4].id}`, alice.token)).status).toBe(404);
    // Its docset had no other document: it no longer exists.
    const sets = await get('/documents/docsets', alice.token);
    expect(sets.body.map((d: any) => d.docSetName)).toEqual(['manuals']);
    expect((await get('/documents?docSetName=policies', alice.token)).status).toBe(403);
  });
});
