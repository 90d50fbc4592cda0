import { loadConfig, withConfig } from '@docqa/common';
import { ListedObject, SharePointConnector, SharePointCredentials, SourceError } from '@docqa/sources';
import { generateKeyPairSync } from 'node:crypto';
import { FakeGraph, startFakeGraph } from '../support/fake-graph';

const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

/**
 * The SharePoint connector with the real MSAL and Microsoft Graph clients against a local HTTPS
 * stand-in for the identity platform and Graph (test/support/fake-graph.ts).
 */
describe('SharePoint connector (MSAL + Graph client against a local Graph)', () => {
  let graph: FakeGraph;
  let connector: SharePointConnector;

  const creds = (over: Partial<SharePointCredentials> = {}): SharePointCredentials =>
    connector.parseCredentials({
      tenantId: graph.app.tenantId,
      clientId: graph.app.clientId,
      clientSecret: graph.app.clientSecret,
      siteId: graph.siteId,
      driveId: graph.driveId,
      folderPath: '/Reports',
      ...over,
    });

  async function listAll(
    c: SharePointCredentials,
    pageSize = 100,
  ): Promise<{ objects: ListedObject[]; pages: number }> {
    const objects: ListedObject[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const page = await connector.listPage(c, token, pageSize);
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
    graph = await startFakeGraph({ pageSize: 7 });
    connector = new SharePointConnector(
      loadConfig({
        NODE_ENV: 'test',
        GRAPH_BASE_URL: graph.graphBaseUrl,
        MS_AUTHORITY_HOST: graph.authorityHost,
        SOURCE_CA_FILE: graph.caFile,
      }).sources,
    );
    graph.addFile('Reports/q1.pdf', '%PDF-1.4 fake');
    graph.addFile('Reports/2024/annual.docx', 'docx bytes');
    graph.addFiles('Reports/bulk', 30, (i) => `file ${i}`);
    graph.addFile('Other/outside.txt', 'not in scope');
  });

  afterAll(async () => {
    await graph?.close();
  });

  it('checks sign-in, site, drive and folder without calling anything but the configured hosts', async () => {
    await connector.check(creds());
    // Only the token endpoint of MS_AUTHORITY_HOST and Graph: no instance discovery or OpenID metadata.
    expect(
      graph.calls.filter((c) => !c.path.startsWith('/v1.0/') && !c.path.includes('/oauth2/v2.0/token')),
    ).toEqual([]);
    expect(graph.calls.filter((c) => c.path.startsWith('/v1.0/')).every((c) => c.authorized)).toBe(true);
  });

  it.each(['thumbprintSha256', 'thumbprintSha1'] as const)(
    'signs in with a certificate instead of a secret (%s)',
    async (which) => {
      const c = creds({
        clientSecret: undefined,
        certificate: {
          thumbprint: graph.app.certificate[which],
          privateKey: graph.app.certificate.privateKey,
        },
      });
      await connector.check(c);
      const wrongKey = await failure(
        connector.check(
          creds({
            clientSecret: undefined,
            certificate: { thumbprint: graph.app.certificate[which], privateKey: otherKey },
          }),
        ),
      );
      expect(wrongKey.kind).toBe('ACCESS_DENIED');
      expect(wrongKey.message).not.toContain('PRIVATE KEY');
    },
  );

  it('lists the folder recursively with @odata.nextLink paging, with source metadata', async () => {
    const { objects, pages } = await listAll(creds());
    expect(objects.map((o) => o.path).sort()).toEqual(
      [
        'Reports/q1.pdf',
        'Reports/2024/annual.docx',
        ...Array.from({ length: 30 }, (_, i) => `Reports/bulk/f-${String(i).padStart(5, '0')}.txt`),
      ].sort(),
    );
    expect(pages).toBeGreaterThan(5); // 30 files at 7 per page
    const q1 = objects.find((o) => o.fileName === 'q1.pdf')!;
    expect(q1.sourceId).toBe(`sharepoint://${graph.driveId}/Reports/q1.pdf`);
    expect(q1.sourceId.startsWith(connector.scopeOf(creds()))).toBe(true);
    expect(q1.metadata).toMatchObject({
      itemId: graph.itemIdOf('Reports/q1.pdf'),
      siteId: graph.siteId,
      driveId: graph.driveId,
      folderPath: 'Reports',
      webUrl: expect.stringContaining('/Reports/q1.pdf'),
    });
    expect(q1.etag).toBeTruthy();
    const root = await listAll(creds({ folderPath: undefined }));
    expect(root.objects.some((o) => o.path === 'Other/outside.txt')).toBe(true);
  });

  it('downloads through the pre-authenticated redirect, streaming with a size limit', async () => {
    const c = creds();
    const file = await connector.download(c, `sharepoint://${graph.driveId}/Reports/q1.pdf`, 1000);
    expect(file.data.toString()).toBe('%PDF-1.4 fake');
    // The download host got no bearer token.
    expect(graph.calls.filter((x) => x.path.startsWith('/download/')).every((x) => !x.authorized)).toBe(true);
    expect(
      (await failure(connector.download(c, `sharepoint://${graph.driveId}/Reports/q1.pdf`, 5))).kind,
    ).toBe('TOO_LARGE');
    expect(
      (await failure(connector.download(c, `sharepoint://${graph.driveId}/Other/outside.txt`, 1000))).kind,
    ).toBe('ACCESS_DENIED');
    expect(
      (await failure(connector.download(c, `sharepoint://${graph.driveId}/Reports/gone.pdf`, 1000))).kind,
    ).toBe('NOT_FOUND');
  });

  it('honours Retry-After on 429 and 503', async () => {
    const c = creds();
    graph.throttleNext(2, 1, 429);
    graph.throttleNext(1, 1, 503);
    const started = Date.now();
    const before = graph.calls.length;
    await connector.check(c);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(2900);
    const retried = graph.calls.slice(before).filter((x) => x.path.startsWith('/v1.0/sites/'));
    expect(retried).toHaveLength(4);
    expect(retried[1].at - retried[0].at).toBeGreaterThanOrEqual(950);
  });

  it('names what failed without echoing the secret: bad secret, unknown tenant, site, drive, folder', async () => {
    const badSecret = await failure(connector.check(creds({ clientSecret: 'wrong-secret-value' })));
    expect(badSecret.kind).toBe('ACCESS_DENIED');
    expect(badSecret.message).toContain('client secret or certificate was rejected');
    expect(badSecret.message).not.toContain('wrong-secret-value');
    const tenant = await failure(connector.check(creds({ tenantId: 'nosuch.onmicrosoft.com' })));
    expect(tenant.kind).toBe('NOT_FOUND');
    expect(tenant.message).toContain('nosuch.onmicrosoft.com');
    const site = await failure(connector.check(creds({ siteId: 'contoso.sharepoint.com,1,2' })));
    expect(site.kind).toBe('NOT_FOUND');
    expect(site.message).toContain('site');
    const folder = await failure(connector.check(creds({ folderPath: 'Nope/Missing' })));
    expect(folder.kind).toBe('NOT_FOUND');
    expect(folder.message).toContain('/Nope/Missing');
    const notFolder = await failure(connector.check(creds({ folderPath: 'Reports/q1.pdf' })));
    expect(notFolder.message).toContain('not a folder');
    for (const e of [badSecret, tenant, site, folder])
      expect(e.message).not.toContain(graph.app.clientSecret);
  });

  it('delta: added, changed, renamed, removed and out-of-scope files since the stored cursor', async () => {
    const c = creds();
    const cursor = await connector.latestCursor(c);
    graph.addFile('Reports/new.txt', 'new');
    graph.updateFile('Reports/q1.pdf', '%PDF-1.4 changed');
    graph.deleteFile('Reports/bulk/f-00003.txt');
    graph.renameFile('Reports/bulk/f-00004.txt', 'renamed.txt');
    graph.addFile('Other/ignored.txt', 'outside');
    graph.addFiles('Reports/more', 10, (i) => `more ${i}`);
    const upserted: ListedObject[] = [];
    const removed: string[] = [];
    let token: string | null = null;
    let next: string | null = null;
    let pages = 0;
    do {
      const page = await connector.changesPage(c, cursor, token);
      expect(page.resyncRequired).toBe(false);
      upserted.push(...page.upserted);
      removed.push(...page.removedItemIds);
      token = page.nextPageToken;
      next = page.nextCursor;
      pages++;
    } while (token);
    expect(pages).toBeGreaterThan(1);
    expect(next).toBeTruthy();
    expect(upserted.map((o) => o.path).sort()).toEqual(
      [
        'Reports/new.txt',
        'Reports/q1.pdf',
        'Reports/bulk/renamed.txt',
        ...Array.from({ length: 10 }, (_, i) => `Reports/more/f-${String(i).padStart(5, '0')}.txt`),
      ].sort(),
    );
    expect(upserted.find((o) => o.path === 'Reports/bulk/renamed.txt')!.metadata.itemId).toBe(
      graph.itemIdOf('Reports/bulk/renamed.txt'),
    );
    expect(removed).toContain(graph.itemIdOf('Other/ignored.txt'));
    expect(removed.length).toBe(2); // the deleted file and the out-of-scope one

    // Nothing changed since the new cursor.
    const again = await connector.changesPage(c, next!, null);
    expect(again.upserted).toEqual([]);
    expect(again.removedItemIds).toEqual([]);

    graph.expireDeltaTokens();
    expect((await connector.changesPage(c, next!, null)).resyncRequired).toBe(true);
  });

  it('a source that stops answering fails the call with a clear, retryable reason', async () => {
    const slow = new SharePointConnector(
      withConfig(
        loadConfig({
          NODE_ENV: 'test',
          GRAPH_BASE_URL: graph.graphBaseUrl,
          MS_AUTHORITY_HOST: graph.authorityHost,
          SOURCE_CA_FILE: graph.caFile,
        }),
        { sources: { requestTimeoutMs: 1500 } },
      ).sources,
    );
    const c = creds();
    await slow.check(c); // signs in first
    graph.hang(true);
    try {
      const err = await failure(slow.listPage(c, null, 10));
      expect(err.kind).toBe('UNAVAILABLE');
      expect(err.retryable).toBe(true);
      expect(err.message).toContain('did not answer in time');
    } finally {
      graph.hang(false);
    }
  });
});
