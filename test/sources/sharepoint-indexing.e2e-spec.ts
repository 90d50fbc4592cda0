import { docsetWorkflowId } from '@docqa/workflow-contract';
import type { TestApp } from '../support/app';
import { FakeGraph, startFakeGraph } from '../support/fake-graph';
import {
  closedStatus,
  dbOf,
  documents,
  indexAndWait,
  newAccount,
  paths,
  progress,
  startIndex,
  startIndexingApp,
  temporalOf,
  waitFor,
} from '../indexing/support';

/**
 * SharePoint through the whole service: the API probes the source before accepting a request
 * (422 SOURCE_UNREACHABLE / SOURCE_EMPTY), check-source, indexing on the real Temporal, Postgres and
 * Elasticsearch with the real MSAL and Graph clients against the local Graph, source metadata
 * on documents, folder-scoped progress and re-syncs.
 */
describe('SharePoint source (API -> Temporal -> Graph)', () => {
  let app: TestApp;
  let graph: FakeGraph;
  let token: string;
  let accountId: number;

  const creds = (over: Record<string, unknown> = {}) => ({
    tenantId: graph.app.tenantId,
    clientId: graph.app.clientId,
    clientSecret: graph.app.clientSecret,
    siteId: graph.siteId,
    driveId: graph.driveId,
    folderPath: '/Policies',
    ...over,
  });
  const body = (docSetName: string, over: Record<string, unknown> = {}) => ({
    docSetName,
    sourceType: 'SHAREPOINT',
    credentials: creds(over),
  });

  beforeAll(async () => {
    graph = await startFakeGraph({ pageSize: 5 });
    app = await startIndexingApp({
      env: {
        GRAPH_BASE_URL: graph.graphBaseUrl,
        MS_AUTHORITY_HOST: graph.authorityHost,
        SOURCE_CA_FILE: graph.caFile,
        INDEXING_CONCURRENCY: '8',
      },
      config: { sources: { requestTimeoutMs: 1000 } },
    });
    ({ token, accountId } = await newAccount(app));
    graph.addFile(
      'Policies/travel.txt',
      'Travel is booked through the portal. Economy class for flights under six hours.',
    );
    graph.addFile('Policies/leave.md', '# Leave\n\nAnnual leave is 25 days.');
    graph.addFile('Policies/HR/benefits.csv', 'benefit,value\ndental,yes\n');
    graph.addFile('Policies/HR/onboarding.html', '<p>Badges are issued on the first day.</p>');
    graph.addFile('Policies/HR/photo.png', 'not indexable');
    graph.addFile('Policies/Finance/expenses.txt', 'Expenses are filed within 30 days.');
    graph.addFile('Elsewhere/ignored.txt', 'outside the folder');
  });
  afterAll(async () => {
    await app?.close();
    await graph?.close();
  });

  it('check-source reports the supported files without indexing', async () => {
    const res = await app.client.post(paths.checkSource, body('policies'), { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sourceFileCount: 5, existingDocumentCount: 0 });
    expect(res.text).not.toContain(graph.app.clientSecret);
  });

  it.each([
    [
      'a wrong client secret',
      { clientSecret: 'definitely-wrong-secret' },
      'client secret or certificate was rejected',
    ],
    ['an unknown tenant', { tenantId: 'unknown-tenant.onmicrosoft.com' }, 'tenant'],
    ['an unknown site', { siteId: 'contoso.sharepoint.com,00000000,11111111' }, 'site'],
    ['an unknown drive', { driveId: 'b!nosuchdrive' }, 'drive'],
    ['an unknown folder', { folderPath: '/Policies/Nope' }, '/Policies/Nope'],
  ])('422 SOURCE_UNREACHABLE for %s, naming what failed and never the secret', async (_what, over, says) => {
    for (const p of [paths.index, paths.checkSource]) {
      const res = await app.client.post(p, body('policies', over), { token });
      expect(res.status).toBe(422);
      expect(res.body.errorCode).toBe('SOURCE_UNREACHABLE');
      expect(res.body.message).toContain(says);
      expect(res.text).not.toContain(graph.app.clientSecret);
      expect(res.text).not.toContain('definitely-wrong-secret');
    }
    expect(app.logs()).not.toContain('definitely-wrong-secret');
  });

  it('400 for malformed credentials and endpoint fields', async () => {
    const res = await app.client.post(
      paths.index,
      body('policies', { graphBaseUrl: 'https://evil.example' }),
      {
        token,
      },
    );
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('credentials.graphBaseUrl');
    const half = await app.client.post(paths.index, body('policies', { clientSecret: undefined }), { token });
    expect(half.status).toBe(400);
  });

  it('indexes the folder recursively; documents carry site, drive and item ids and the web URL', async () => {
    const jobId = await indexAndWait(app, token, body('policies'));
    const docs = await documents(app, accountId, 'policies');
    expect(docs.map((d) => [d.file_name, d.status])).toEqual([
      ['benefits.csv', 'COMPLETE'],
      ['expenses.txt', 'COMPLETE'],
      ['leave.md', 'COMPLETE'],
      ['onboarding.html', 'COMPLETE'],
      ['travel.txt', 'COMPLETE'],
    ]);
    const db = await dbOf(app);
    try {
      const { rows } = await db.query(
        `SELECT source_id, source_metadata FROM documents WHERE account_id = $1 AND file_name = 'travel.txt'`,
        [accountId],
      );
      expect(rows[0].source_id).toBe(`sharepoint://${graph.driveId}/Policies/travel.txt`);
      expect(rows[0].source_metadata).toMatchObject({
        itemId: graph.itemIdOf('Policies/travel.txt'),
        siteId: graph.siteId,
        driveId: graph.driveId,
        webUrl: expect.stringContaining('/Policies/travel.txt'),
      });
      // Credentials kept for re-sync are encrypted at rest.
      const run = await db.query('SELECT credentials_enc FROM index_runs WHERE id = $1', [jobId]);
      expect(run.rows[0].credentials_enc).toBeTruthy();
      expect(run.rows[0].credentials_enc).not.toContain(graph.app.clientSecret);
    } finally {
      await db.end();
    }
  });

  it('scopes progress to a SharePoint folder with siteId, driveId and folderPath together', async () => {
    const q = (folderPath: string) =>
      `${paths.progress('policies')}?siteId=${encodeURIComponent(graph.siteId)}&driveId=${encodeURIComponent(
        graph.driveId,
      )}&folderPath=${encodeURIComponent(folderPath)}`;
    const hr = await app.client.get(q('/Policies/HR'), { token });
    expect(hr.status).toBe(200);
    expect(hr.body).toMatchObject({ completedCount: 2, pendingCount: 0, errorCount: 0, isIndexing: false });
    expect((await app.client.get(q('Policies/Finance/'), { token })).body.completedCount).toBe(1);
    expect((await app.client.get(q('/Policies'), { token })).body.completedCount).toBe(5);
    expect((await app.client.get(q('/Elsewhere'), { token })).body.completedCount).toBe(0);
    expect((await progress(app, token, 'policies')).completedCount).toBe(5);

    const partial = await app.client.get(
      `${paths.progress('policies')}?siteId=${encodeURIComponent(graph.siteId)}&folderPath=/Policies`,
      { token },
    );
    expect(partial.status).toBe(400);
    expect(partial.body.errorCode).toBe('VALIDATION_ERROR');
    expect(partial.body.message).toContain('driveId');
    const other = await app.client.get(
      `${paths.progress('policies')}?siteId=x&driveId=${encodeURIComponent(graph.driveId)}&folderPath=/Policies`,
      { token },
    );
    expect(other.body.completedCount).toBe(0);
  });

  it('re-syncs from the stored delta link: added, changed, renamed and removed files', async () => {
    graph.addFile('Policies/security.txt', 'Laptops lock after five minutes.');
    graph.updateFile(
      'Policies/travel.txt',
      'Travel is booked through the new portal. Business class over six hours.',
    );
    graph.deleteFile('Policies/leave.md');
    graph.renameFile('Policies/HR/benefits.csv', 'perks.csv');
    const before = graph.calls.length;
    const jobId = await indexAndWait(app, token, body('policies'));
    const during = graph.calls.slice(before).map((c) => c.path);
    // The run read the drive's delta feed from the stored link, not the folder tree.
    expect(during.some((p) => p.includes('/root/delta?token=') && !p.includes('latest'))).toBe(true);
    const docs = await documents(app, accountId, 'policies');
    expect(docs.map((d) => d.file_name)).toEqual([
      'expenses.txt',
      'onboarding.html',
      'perks.csv',
      'security.txt',
      'travel.txt',
    ]);
    expect(docs.every((d) => d.status === 'COMPLETE')).toBe(true);
    const db = await dbOf(app);
    try {
      const { rows } = await db.query('SELECT counters FROM index_runs WHERE id = $1', [jobId]);
      expect(rows[0].counters).toMatchObject({ new: 2, changed: 1, removed: 2 });
      const state = await db.query(
        `SELECT scope, cursor FROM source_sync_state WHERE account_id = $1 AND docset_name = 'policies'`,
        [accountId],
      );
      expect(state.rows).toEqual([
        {
          scope: `sharepoint://${graph.driveId}/Policies/`,
          cursor: expect.stringContaining('/root/delta?token='),
        },
      ]);
    } finally {
      await db.end();
    }
  });

  it('a feed that stops answering fails the run with the reason; the next run resumes from the stored link', async () => {
    graph.addFile('Policies/late.txt', 'Added while the feed was down.');
    graph.hang(true, /\/root\/delta\?token=\d/);
    let jobId: string;
    try {
      jobId = await startIndex(app, token, body('policies'));
      await waitFor(app, token, 'policies', (p) => !p.isIndexing, 200_000, 1000);
    } finally {
      graph.hang(false);
    }
    const summary = await app.client.get(paths.summary, { token });
    const item = summary.body.docSets.find((d: { docSetName: string }) => d.docSetName === 'policies');
    expect(item.lastRun).toMatchObject({ jobId, status: 'FAILED' });
    expect(item.lastRun.error).toContain('did not answer in time');
    expect(
      await closedStatus(temporalOf(app).workflow.getHandle(docsetWorkflowId(accountId, 'policies'))),
    ).toBe('FAILED');

    await indexAndWait(app, token, body('policies'));
    const docs = await documents(app, accountId, 'policies');
    expect(docs.find((d) => d.file_name === 'late.txt')?.status).toBe('COMPLETE');
  });

  it('422 SOURCE_EMPTY when a folder with 0 supported files is pointed at a docset with documents', async () => {
    graph.addFile('Empty/readme.png', 'no supported files here');
    const res = await app.client.post(paths.index, body('policies', { folderPath: '/Empty' }), { token });
    expect(res.status).toBe(422);
    expect(res.body.errorCode).toBe('SOURCE_EMPTY');
    const check = await app.client.post(paths.checkSource, body('policies', { folderPath: '/Empty' }), {
      token,
    });
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ sourceFileCount: 0, existingDocumentCount: 6 }); // 5 + late.txt
  });

  it('the docset disappears when its last file is deleted at the source (the delta feed says so)', async () => {
    graph.addFile('Solo/only.txt', 'The only file.');
    await indexAndWait(app, token, body('solo', { folderPath: '/Solo' }));
    expect((await documents(app, accountId, 'solo')).map((d) => d.status)).toEqual(['COMPLETE']);
    graph.deleteFile('Solo/only.txt');
    const check = await app.client.post(paths.checkSource, body('solo', { folderPath: '/Solo' }), { token });
    expect(check.body).toMatchObject({ sourceFileCount: 0, existingDocumentCount: 1 });
    await indexAndWait(app, token, body('solo', { folderPath: '/Solo' }));
    expect(await documents(app, accountId, 'solo')).toEqual([]);
    const docsets = await app.client.get('/api/v1/document_proxy/documents/docsets', { token });
    expect(JSON.stringify(docsets.body)).not.toContain('"solo"');
  });
});
