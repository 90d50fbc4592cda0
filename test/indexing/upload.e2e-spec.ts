import * as fs from 'node:fs';
import * as path from 'node:path';
import * as tls from 'node:tls';
import type { TestApp } from '../support/app';
import { minimalPdf } from '../support/pdf';
import { createKey, setPlan } from '../chatbot/support';
import { documents, newAccount, paths, runRow, startIndexingApp, waitFor } from './support';
import { filesUnder, formData, runCount, storeDir, upload, UPLOAD } from './upload-support';
import { eventually } from '../support/wait';

const MAX_FILES = 3;
const MAX_FILE_BYTES = 64 * 1024;
const ASK = '/api/v1/document_proxy/ask';

const CRANES = minimalPdf(['Harbour cranes lift containers.', 'Crane operators stop at wind force seven.']);
const TIDES = minimalPdf(['The tide tables are printed every Monday.']);
const CRANES_V2 = minimalPdf(['Harbour cranes lift containers.', 'Crane operators stop at wind force nine.']);

/**
 * POST /index/upload on the real engines (Temporal, Postgres, Elasticsearch): files go to the
 * account's upload store under DATA_DIR and are indexed as source type UPLOAD; refusals store
 * nothing and start no run; accounts never see each other's uploads.
 */
describe('upload: POST /index/upload into the embedded upload store', () => {
  let app: TestApp;
  let a: { token: string; accountId: number };
  let b: { token: string; accountId: number };
  const docSetName = 'harbour';
  const uploadsRoot = () => path.join(app.dataDir, 'uploads');

  beforeAll(async () => {
    app = await startIndexingApp({
      config: { sources: { uploadMaxFiles: MAX_FILES, uploadMaxFileBytes: MAX_FILE_BYTES } },
    });
    a = await newAccount(app);
    b = await newAccount(app);
  }, 300_000);
  afterAll(async () => {
    await app?.close();
  });

  const ask = (token: string, question: string, names = [docSetName]) =>
    app.client.post(ASK, { question, docSetNames: names }, { token });

  it('stores two PDFs, indexes them as UPLOAD and answers from them with citations', async () => {
    const res = await upload(app, a.token, docSetName, [
      { name: 'cranes.pdf', data: CRANES, contentType: 'application/pdf' },
      { name: 'tides.pdf', data: TIDES, contentType: 'application/pdf' },
    ]);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: 'Indexing job queued', docSetName, jobId: expect.any(String) });
    expect(filesUnder(storeDir(app, a.accountId, docSetName))).toEqual(['cranes.pdf', 'tides.pdf']);
    expect(fs.readFileSync(path.join(storeDir(app, a.accountId, docSetName), 'cranes.pdf'))).toEqual(CRANES);

    const p = await waitFor(app, a.token, docSetName);
    expect(p).toEqual({
      pendingCount: 0,
      indexingCount: 0,
      completedCount: 2,
      errorCount: 0,
      isIndexing: false,
    });
    expect((await runRow(app, res.body.jobId)).status).toBe('COMPLETED');

    const list = await app.client.get(`/api/v1/document_proxy/documents?docSetName=${docSetName}`, {
      token: a.token,
    });
    expect(list.status).toBe(200);
    expect(list.body.map((d: { fileName: string; source: string }) => [d.fileName, d.source])).toEqual([
      ['cranes.pdf', 'UPLOAD'],
      ['tides.pdf', 'UPLOAD'],
    ]);

    const answer = await ask(a.token, 'At what wind force do crane operators stop?');
    expect(answer.status).toBe(200);
    const cited = answer.body.citations.find((c: { fileName: string }) => c.fileName === 'cranes.pdf');
    expect(cited).toMatchObject({
      fileName: 'cranes.pdf',
      pageNumber: '2',
      sourceType: 'UPLOAD',
      sourceMetadata: { sourceId: 'upload://cranes.pdf' },
    });
  });

  it('serves the cited file through a chatbot file link, read from the upload store', async () => {
    await setPlan(app, a.accountId, 'pro');
    const { key } = await createKey(app, a.token);
    const res = await app.client.post(
      '/api/v1/chatbot/ask_question',
      { question: 'At what wind force do crane operators stop?' },
      { token: key },
    );
    expect(res.status).toBe(200);
    const link = res.body.citations.find((c: { fileName: string }) => c.fileName === 'cranes.pdf')
      ?.source as string;
    expect(link).toMatch(/\/api\/v1\/chatbot\/files\/[^#]+#page=2$/);
    const file = await app.client.get(new URL(link).pathname);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(Buffer.from(file.text, 'latin1')).toEqual(CRANES);
  });

  it('replaces a document uploaded again under its name and keeps the earlier files', async () => {
    const res = await upload(app, a.token, docSetName, [{ name: 'cranes.pdf', data: CRANES_V2 }]);
    expect(res.status).toBe(202);
    await waitFor(app, a.token, docSetName);
    const run = await runRow(app, res.body.jobId);
    expect(run.status).toBe('COMPLETED');
    expect(run.counters).toMatchObject({ listed: 2, changed: 1, unchanged: 1, removed: 0 });
    const docs = await documents(app, a.accountId, docSetName);
    expect(docs.map((d) => [d.file_name, d.status])).toEqual([
      ['cranes.pdf', 'COMPLETE'],
      ['tides.pdf', 'COMPLETE'],
    ]);
    const answer = await ask(a.token, 'At what wind force do crane operators stop?');
    expect(answer.status).toBe(200);
    expect(answer.body.answer).toContain('force nine');
    expect(JSON.stringify(answer.body)).not.toContain('force seven');
  });

  it('keeps accounts apart: same docset name, own store, own documents', async () => {
    const res = await upload(app, b.token, docSetName, [{ name: 'cranes.pdf', data: TIDES }]);
    expect(res.status).toBe(202);
    await waitFor(app, b.token, docSetName);
    expect(filesUnder(storeDir(app, b.accountId, docSetName))).toEqual(['cranes.pdf']);
    // A's file of the same name is untouched.
    expect(fs.readFileSync(path.join(storeDir(app, a.accountId, docSetName), 'cranes.pdf'))).toEqual(
      CRANES_V2,
    );
    expect((await documents(app, b.accountId, docSetName)).map((d) => d.file_name)).toEqual(['cranes.pdf']);
    const answer = await ask(b.token, 'wind force');
    expect(JSON.stringify(answer.body)).not.toContain('wind force');
    // POST /index with sourceType UPLOAD re-reads only the caller's own store; credentials naming another account are refused.
    const forged = await app.client.post(
      paths.index,
      { docSetName, sourceType: 'UPLOAD', credentials: { accountId: a.accountId, docSetName } },
      { token: b.token },
    );
    expect(forged.status).toBe(400);
    expect(forged.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field: 'credentials' });
    const resync = await app.client.post(
      paths.index,
      { docSetName, sourceType: 'UPLOAD', indexOptions: { forceReindex: true } },
      { token: b.token },
    );
    expect(resync.status).toBe(202);
    await waitFor(app, b.token, docSetName);
    expect((await runRow(app, resync.body.jobId)).status).toBe('COMPLETED');
    expect((await documents(app, b.accountId, docSetName)).map((d) => [d.file_name, d.status])).toEqual([
      ['cranes.pdf', 'COMPLETE'],
    ]);
  });

  describe('refusals store nothing and start no run', () => {
    let before: { files: string[]; runs: number };
    const snapshot = async () => ({
      files: filesUnder(uploadsRoot()),
      runs: await runCount(app, a.accountId),
    });
    beforeEach(async () => {
      before = await snapshot();
    });
    afterEach(async () => {
      expect(await snapshot()).toEqual(before);
    });

    const pdf = (name: string, data: Buffer | string = TIDES) => ({ name, data });

    it('415 for a file type that is not indexed (after valid files of the same request)', async () => {
      const res = await upload(app, a.token, docSetName, [pdf('new.pdf'), pdf('archive.zip', 'PK')]);
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ errorCode: 'UNSUPPORTED_MEDIA_TYPE', fileName: 'archive.zip' });
    });

    it('415 for a body that is not multipart/form-data', async () => {
      const res = await app.client.post(UPLOAD, { docSetName }, { token: a.token });
      expect(res.status).toBe(415);
      expect(res.body.errorCode).toBe('UNSUPPORTED_MEDIA_TYPE');
    });

    it('400 for an empty file', async () => {
      const res = await upload(app, a.token, docSetName, [pdf('new.pdf'), pdf('empty.pdf', '')]);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field: 'files' });
      expect(res.body.message).toContain('empty.pdf');
    });

    it('413 for more files than UPLOAD_MAX_FILES', async () => {
      const files = Array.from({ length: MAX_FILES + 1 }, (_, i) => pdf(`f${i}.pdf`));
      const res = await upload(app, a.token, docSetName, files);
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ errorCode: 'PAYLOAD_TOO_LARGE', limit: MAX_FILES });
    });

    it('413 for a file larger than UPLOAD_MAX_FILE_BYTES (and one exactly at it is not the problem)', async () => {
      const res = await upload(app, a.token, docSetName, [
        pdf('at-limit.txt', 'a'.repeat(MAX_FILE_BYTES)),
        pdf('big.txt', 'a'.repeat(MAX_FILE_BYTES + 1)),
      ]);
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({
        errorCode: 'PAYLOAD_TOO_LARGE',
        fileName: 'big.txt',
        limit: MAX_FILE_BYTES,
      });
    });

    it('400 for an invalid, missing or repeated docSetName, no files, or a file outside "files"', async () => {
      const bad = [
        await upload(app, a.token, ' padded ', [pdf('x.pdf')]),
        await upload(app, a.token, null, [pdf('x.pdf')]),
        await upload(app, a.token, docSetName, []),
        await upload(app, a.token, docSetName, [{ ...pdf('x.pdf'), field: 'file' }]),
        await upload(app, a.token, docSetName, [pdf('x.pdf'), pdf('x.pdf')]),
      ];
      expect(bad.map((r) => [r.status, r.body.errorCode, r.body.field])).toEqual([
        [400, 'VALIDATION_ERROR', 'docSetName'],
        [400, 'VALIDATION_ERROR', 'docSetName'],
        [400, 'VALIDATION_ERROR', 'files'],
        [400, 'VALIDATION_ERROR', 'files'],
        [400, 'VALIDATION_ERROR', 'files'],
      ]);
    });

    it('401 without a token, 403 for a token limited to other docsets', async () => {
      expect((await upload(app, '', docSetName, [pdf('x.pdf')])).status).toBe(401);
      const scoped = await app.client.post(
        '/api/v1/api_tokens',
        { name: 'other docsets', docset_names: ['elsewhere'] },
        { token: a.token },
      );
      expect(scoped.status).toBe(200);
      const res = await upload(app, scoped.body.token, docSetName, [pdf('x.pdf')]);
      expect(res.status).toBe(403);
      expect(res.body.errorCode).toBe('FORBIDDEN');
    });
  });

  it('a client that goes away mid-file leaves nothing stored or staged, and no run', async () => {
    const runsBefore = await runCount(app, a.accountId);
    const { body, contentType } = formData(
      [['docSetName', 'aborted']],
      [{ name: 'half.txt', data: 'x'.repeat(MAX_FILE_BYTES - 10) }],
    );
    const socket = tls.connect({
      host: 'localhost',
      port: app.api.httpsPort,
      ca: fs.readFileSync(app.api.tls.caFile),
    });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    socket.write(
      `POST ${UPLOAD} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${a.token}\r\n` +
        `Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, body.length - 20_000));
    const staging = path.join(uploadsRoot(), '.staging');
    await eventually(async () => (filesUnder(staging).length === 1 ? true : undefined), 10_000);
    socket.destroy();
    await eventually(async () => (filesUnder(staging).length === 0 ? true : undefined), 10_000);
    expect(fs.existsSync(storeDir(app, a.accountId, 'aborted'))).toBe(false);
    expect(await runCount(app, a.accountId)).toBe(runsBefore);
  });

  it('409 while a run of the docset is open, and nothing of that request is stored', async () => {
    const first = await upload(app, a.token, 'busy', [
      { name: 'one.pdf', data: CRANES },
      { name: 'two.pdf', data: TIDES },
    ]);
    expect(first.status).toBe(202);
    const second = await upload(app, a.token, 'busy', [{ name: 'three.pdf', data: TIDES }]);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ errorCode: 'INDEXING_IN_PROGRESS', docSetName: 'busy' });
    await waitFor(app, a.token, 'busy');
    expect(filesUnder(storeDir(app, a.accountId, 'busy'))).toEqual(['one.pdf', 'two.pdf']);
  });

  it('keeps file names inside the store: path segments, control and bidi characters are dropped', async () => {
    const res = await upload(app, a.token, 'names', [
      { name: '../../../escape.txt', data: 'Escapes are dropped.' },
      { name: 'C:\\\\Users\\\\x\\\\win.txt', data: 'Windows paths too.' },
      { name: 'tab\u0009bidi\u202egpj.txt', data: 'Controls removed.' },
    ]);
    expect(res.status).toBe(202);
    await waitFor(app, a.token, 'names');
    expect(filesUnder(storeDir(app, a.accountId, 'names'))).toEqual([
      'escape.txt',
      'tabbidigpj.txt',
      'win.txt',
    ]);
    expect(fs.existsSync(path.join(app.dataDir, 'escape.txt'))).toBe(false);
    expect(filesUnder(path.join(uploadsRoot(), '.staging'))).toEqual([]);
  });

  it('retries a failed uploaded document from the store', async () => {
    const res = await upload(app, a.token, 'broken', [{ name: 'corrupt.pdf', data: '%PDF-1.4 not really' }]);
    expect(res.status).toBe(202);
    await waitFor(app, a.token, 'broken');
    const [doc] = await documents(app, a.accountId, 'broken');
    expect(doc.status).toBe('ERROR');
    const retry = await app.client.post(paths.retry(doc.id), undefined, { token: a.token });
    expect(retry.status).toBe(202);
    await waitFor(app, a.token, 'broken');
    const run = await runRow(app, retry.body.jobId);
    expect(run.status).toBe('COMPLETED');
    const [again] = await documents(app, a.accountId, 'broken');
    expect(again.status).toBe('ERROR');
    // the error is the file's, not a missing source or credentials
    expect(again.error).not.toMatch(/credential|not found|no longer/i);
  });

  it('DELETE /index/docsets removes the stored files of that account and docset only', async () => {
    const res = await app.client.delete(paths.docsets, { docSetNames: [docSetName] }, { token: a.token });
    expect(res.status).toBe(200);
    expect(fs.existsSync(storeDir(app, a.accountId, docSetName))).toBe(false);
    expect(filesUnder(storeDir(app, b.accountId, docSetName))).toEqual(['cranes.pdf']);
    expect(filesUnder(storeDir(app, a.accountId, 'busy'))).toEqual(['one.pdf', 'two.pdf']);
  });

  it("deleting a user deletes their personal account's uploaded files, and only those", async () => {
    expect(filesUnder(path.join(uploadsRoot(), String(b.accountId)))).not.toEqual([]);
    const res = await app.client.delete('/api/v1/me', undefined, { token: b.token });
    expect(res.status).toBe(200);
    expect(fs.existsSync(path.join(uploadsRoot(), String(b.accountId)))).toBe(false);
    expect(filesUnder(storeDir(app, a.accountId, 'busy'))).toEqual(['one.pdf', 'two.pdf']);
  });
});
