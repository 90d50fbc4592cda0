import { loadConfig } from '@docqa/common';
import { GoogleDriveConnector, GoogleDriveCredentials, ListedObject, SourceError } from '@docqa/sources';
import type { TestApp } from '../support/app';
import { FakeGoogle, startFakeGoogle } from '../support/fake-google';
import { dbOf, documents, indexAndWait, newAccount, paths, startIndexingApp } from '../indexing/support';

/**
 * Google Drive with the real Drive v3 client (@googleapis/drive) and a locally signed
 * service-account JWT against a local stand-in for Google's token endpoint and Drive API
 * (test/support/fake-google.ts): the connector on its own, then through the service.
 */
describe('Google Drive source', () => {
  let google: FakeGoogle;
  let connector: GoogleDriveConnector;
  let hr: string;
  let handbook: string;
  let budget: string;
  let deck: string;
  let notes: string;

  const raw = (over: Record<string, unknown> = {}) => ({
    serviceAccountKey: google.serviceAccountKey,
    folderId: google.rootFolderId,
    ...over,
  });
  const creds = (over: Record<string, unknown> = {}): GoogleDriveCredentials =>
    connector.parseCredentials(raw(over));

  async function listAll(c: GoogleDriveCredentials) {
    const objects: ListedObject[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const page = await connector.listPage(c, token, 100);
      objects.push(...(page.objects as ListedObject[]));
      token = page.nextPageToken;
      pages++;
    } while (token);
    return { objects, pages };
  }

  async function failure(p: Promise<unknown>): Promise<SourceError> {
    try {
      await p;
    } catch (err) {
      return err as SourceError;
    }
    throw new Error('expected a SourceError');
  }

  beforeAll(async () => {
    google = await startFakeGoogle({ pageSize: 4 });
    connector = new GoogleDriveConnector(
      loadConfig({
        NODE_ENV: 'test',
        GOOGLE_API_ROOT_URL: google.apiRootUrl,
        GOOGLE_TOKEN_URL: google.tokenUrl,
      }).sources,
    );
    hr = google.addFolder(google.rootFolderId, 'HR');
    handbook = google.addGoogleFile(
      hr,
      'Employee handbook',
      'document',
      'The probation period lasts six months. Remote work needs manager approval.',
    );
    budget = google.addGoogleFile(
      google.rootFolderId,
      'Budget 2025',
      'spreadsheet',
      'team,amount\nops,1200\n',
    );
    deck = google.addGoogleFile(
      google.rootFolderId,
      'Kick-off',
      'presentation',
      'Slide 1: goals. Slide 2: timeline.',
    );
    notes = google.addFile(hr, 'notes.txt', 'Payroll runs on the 25th.');
    google.addFile(hr, 'scan.png', 'binary', 'image/png');
    for (let i = 0; i < 9; i++)
      google.addFile(google.rootFolderId, `memo-${i}.md`, `# Memo ${i}\n\nItem ${i}.`);
    google.addGoogleFile(google.rootFolderId, 'Survey', 'form' as never, 'not exportable');
    const outside = google.addFolder(google.sharedDriveId, 'Elsewhere');
    google.addFile(outside, 'other.txt', 'in the shared drive');
  });
  afterAll(async () => {
    await google?.close();
  });

  describe('connector', () => {
    it('rejects endpoint fields and ignores the key file token_uri (server configuration only)', async () => {
      expect(() => connector.parseCredentials(raw({ tokenUrl: 'http://169.254.169.254/' }))).toThrow(
        /server configuration/,
      );
      expect(() => connector.parseCredentials({ serviceAccountKey: google.serviceAccountKey })).toThrow(
        /folderId or/,
      );
      await connector.check(creds());
      expect(google.calls.some((c) => c.path === '/token')).toBe(true);
    });

    it('lists the folder tree with paging; Docs, Sheets and Slides become exportable files', async () => {
      const { objects, pages } = await listAll(creds());
      expect(pages).toBeGreaterThan(3);
      expect(objects.map((o) => o.path).sort()).toEqual(
        [
          'HR/Employee handbook.txt',
          'HR/notes.txt',
          'HR/scan.png',
          'Budget 2025.csv',
          'Kick-off.txt',
          ...Array.from({ length: 9 }, (_, i) => `memo-${i}.md`),
        ].sort(),
      );
      const doc = objects.find((o) => o.metadata.itemId === handbook)!;
      expect(doc.sourceId).toBe(`gdrive://${google.rootFolderId}/${handbook}`);
      expect(doc.sourceId.startsWith(connector.scopeOf(creds()))).toBe(true);
      expect(doc.metadata).toMatchObject({
        exportedAs: 'text/plain',
        webUrl: expect.stringContaining(handbook),
      });
      expect(objects.find((o) => o.metadata.itemId === notes)!.etag).toMatch(/^[0-9a-f]{32}$/);
    });

    it('lists a whole shared drive when only driveId is given', async () => {
      const c = creds({ folderId: undefined, driveId: google.sharedDriveId });
      await connector.check(c);
      const { objects } = await listAll(c);
      expect(objects.map((o) => o.path)).toEqual(['Elsewhere/other.txt']);
      expect(objects[0].sourceId.startsWith(`gdrive://${google.sharedDriveId}/`)).toBe(true);
      expect(objects[0].metadata.driveId).toBe(google.sharedDriveId);
    });

    it('exports Docs to text, Sheets to CSV and Slides to text, and downloads other files', async () => {
      const c = creds();
      const text = await connector.download(c, `gdrive://${google.rootFolderId}/${handbook}`, 10_000);
      expect(text.data.toString()).toContain('probation period');
      await connector.download(c, `gdrive://${google.rootFolderId}/${budget}`, 10_000);
      await connector.download(c, `gdrive://${google.rootFolderId}/${deck}`, 10_000);
      expect(google.exports).toEqual([
        { fileId: handbook, mimeType: 'text/plain' },
        { fileId: budget, mimeType: 'text/csv' },
        { fileId: deck, mimeType: 'text/plain' },
      ]);
      const plain = await connector.download(c, `gdrive://${google.rootFolderId}/${notes}`, 10_000);
      expect(plain.data.toString()).toBe('Payroll runs on the 25th.');
      expect((await failure(connector.download(c, `gdrive://${google.rootFolderId}/${notes}`, 5))).kind).toBe(
        'TOO_LARGE',
      );
      expect(
        (await failure(connector.download(c, `gdrive://${google.sharedDriveId}/${notes}`, 50))).kind,
      ).toBe('ACCESS_DENIED');
    });

    it('honours Retry-After on 429 and 503', async () => {
      google.throttleNext(1, 1, 429);
      google.throttleNext(1, 1, 503);
      const start = Date.now();
      await connector.check(creds());
      expect(Date.now() - start).toBeGreaterThanOrEqual(1900);
    });

    it('domain-wide delegation: an allowed subject signs in, another is refused', async () => {
      await connector.check(creds({ subject: 'admin@example.com' }));
      const err = await failure(connector.check(creds({ subject: 'intern@example.com' })));
      expect(err.kind).toBe('ACCESS_DENIED');
      expect(err.message).toContain('delegation');
    });

    it('names what failed: unknown folder or shared drive, a key Google does not know', async () => {
      expect((await failure(connector.check(creds({ folderId: 'nosuchfolder' })))).message).toContain(
        'nosuchfolder',
      );
      const drive = await failure(connector.check(creds({ folderId: undefined, driveId: 'nosuchdrive' })));
      expect(drive.kind).toBe('NOT_FOUND');
      const other = await import('node:crypto').then((m) =>
        m
          .generateKeyPairSync('rsa', { modulusLength: 2048 })
          .privateKey.export({ type: 'pkcs8', format: 'pem' }),
      );
      const bad = await failure(
        connector.check(
          creds({ serviceAccountKey: { ...google.serviceAccountKey, private_key: other.toString() } }),
        ),
      );
      expect(bad.kind).toBe('ACCESS_DENIED');
      expect(bad.message).not.toContain('PRIVATE KEY');
    });

    it('changes feed: added, changed, trashed, removed and moved-out files since the start page token', async () => {
      const c = creds();
      const cursor = await connector.latestCursor(c);
      const added = google.addFile(hr, 'new.txt', 'new');
      google.updateFile(handbook, 'The probation period lasts three months.');
      google.trashFile(notes);
      const memo = google.addFile(google.rootFolderId, 'gone.txt', 'x');
      google.deleteFile(memo);
      const mover = google.addFile(google.rootFolderId, 'mover.txt', 'moving');
      const elsewhere = google.addFolder(google.sharedDriveId, 'Archive');
      google.moveFile(mover, elsewhere);
      const upserted: ListedObject[] = [];
      const removed: string[] = [];
      let token: string | null = null;
      let next: string | null = null;
      do {
        const page = await connector.changesPage(c, cursor, token);
        upserted.push(...page.upserted);
        removed.push(...page.removedItemIds);
        token = page.nextPageToken;
        next = page.nextCursor;
      } while (token);
      expect(upserted.map((o) => o.path).sort()).toEqual(['HR/Employee handbook.txt', 'HR/new.txt']);
      expect(upserted.find((o) => o.metadata.itemId === added)).toBeTruthy();
      expect(removed.sort()).toEqual([notes, memo, mover].sort());
      expect(next).toBeTruthy();
      expect((await connector.changesPage(c, 'garbage-token', null)).resyncRequired).toBe(true);
    });
  });

  describe('through the service', () => {
    let app: TestApp;
    let token: string;
    let accountId: number;
    const body = (docSetName: string, over: Record<string, unknown> = {}) => ({
      docSetName,
      sourceType: 'GOOGLEDRIVE',
      credentials: raw(over),
    });

    beforeAll(async () => {
      app = await startIndexingApp({
        env: { GOOGLE_API_ROOT_URL: google.apiRootUrl, GOOGLE_TOKEN_URL: google.tokenUrl },
      });
      ({ token, accountId } = await newAccount(app));
    });
    afterAll(async () => {
      await app?.close();
    });

    it('422 SOURCE_UNREACHABLE for an unknown folder or a refused key; check-source counts files', async () => {
      const res = await app.client.post(paths.index, body('drive', { folderId: 'nosuchfolder' }), { token });
      expect(res.status).toBe(422);
      expect(res.body.errorCode).toBe('SOURCE_UNREACHABLE');
      expect(res.body.message).toContain('nosuchfolder');
      const delegated = await app.client.post(
        paths.checkSource,
        body('drive', { subject: 'intern@example.com' }),
        {
          token,
        },
      );
      expect(delegated.status).toBe(422);
      expect(delegated.text).not.toContain('PRIVATE KEY');
      const check = await app.client.post(paths.checkSource, body('drive'), { token });
      expect(check.status).toBe(200);
      expect(check.body.existingDocumentCount).toBe(0);
      expect(check.body.sourceFileCount).toBeGreaterThanOrEqual(12);
    });

    it('indexes the folder with Google Docs exported to text; documents link back to Drive', async () => {
      await indexAndWait(app, token, body('drive'));
      const docs = await documents(app, accountId, 'drive');
      expect(docs.every((d) => d.status === 'COMPLETE')).toBe(true);
      expect(docs.map((d) => d.file_name)).toEqual(
        expect.arrayContaining(['Employee handbook.txt', 'Budget 2025.csv', 'Kick-off.txt', 'new.txt']),
      );
      const db = await dbOf(app);
      try {
        const { rows } = await db.query(
          `SELECT p.text, d.source_metadata FROM documents d JOIN document_pages p ON p.document_id = d.id
            WHERE d.account_id = $1 AND d.file_name = 'Employee handbook.txt'`,
          [accountId],
        );
        expect(rows[0].text).toContain('probation period lasts three months');
        expect(rows[0].source_metadata).toMatchObject({
          itemId: handbook,
          exportedAs: 'text/plain',
          webUrl: expect.stringContaining('docs.google.com'),
        });
      } finally {
        await db.end();
      }
    });

    it('re-syncs through the changes feed from the stored start page token', async () => {
      const before = google.calls.length;
      google.updateFile(budget, 'team,amount\nops,1500\n');
      google.trashFile(deck);
      google.addGoogleFile(hr, 'Holiday calendar', 'spreadsheet', 'date,holiday\n2025-12-25,Christmas\n');
      await indexAndWait(app, token, body('drive'));
      const during = google.calls.slice(before).map((c) => c.path);
      expect(during.some((p) => p.startsWith('/drive/v3/changes?'))).toBe(true);
      // Only the API probe walked the folders; the run itself read the feed.
      const docs = await documents(app, accountId, 'drive');
      const names = docs.map((d) => d.file_name);
      expect(names).toContain('Holiday calendar.csv');
      expect(names).not.toContain('Kick-off.txt');
      expect(docs.every((d) => d.status === 'COMPLETE')).toBe(true);
      const db = await dbOf(app);
      try {
        const { rows } = await db.query(
          `SELECT r.counters, s.cursor FROM index_runs r
             JOIN source_sync_state s ON s.account_id = r.account_id AND s.docset_name = r.docset_name
            WHERE r.account_id = $1 AND r.docset_name = 'drive' ORDER BY r.created_at DESC LIMIT 1`,
          [accountId],
        );
        expect(rows[0].counters).toMatchObject({ new: 1, changed: 1, removed: 1 });
        expect(rows[0].cursor).toMatch(/^\d+$/);
      } finally {
        await db.end();
      }
    });
  });
});
