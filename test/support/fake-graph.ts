import * as fs from 'node:fs';
import * as https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { FakeDrive } from './fake-graph-drive';
import { FakeGraphApp, FakeIdentity, selfSignedPair } from './fake-graph-identity';
import { downloadReply, driveReply, graphError, Reply } from './fake-graph-routes';

export type { FakeGraphApp } from './fake-graph-identity';

export interface FakeGraphCall {
  method: string;
  path: string;
  authorized: boolean;
  at: number;
}

export interface FakeGraph {
  /** MS_AUTHORITY_HOST */
  authorityHost: string;
  /** GRAPH_BASE_URL (…/v1.0) */
  graphBaseUrl: string;
  /** SOURCE_CA_FILE: the server's self-signed certificate. */
  caFile: string;
  calls: FakeGraphCall[];
  tokenRequests: number;
  app: FakeGraphApp;
  siteId: string;
  driveId: string;
  /** Server-side page size of children/delta (Graph caps `$top`; the fake pages at this). */
  pageSize: number;
  addFile(filePath: string, content: string | Buffer): string;
  updateFile(filePath: string, content: string | Buffer): void;
  deleteFile(filePath: string): void;
  renameFile(filePath: string, newName: string): void;
  /** Many small files quickly: `${folder}/f-00001.txt` ... */
  addFiles(folder: string, count: number, content: (i: number) => string): void;
  itemIdOf(filePath: string): string;
  /** The next `count` Graph requests answer `status` with `Retry-After: seconds`. */
  throttleNext(count: number, retryAfterSeconds: number, status?: 429 | 503): void;
  /** While set, Graph requests are accepted and never answered (only those matching `only`, if given). */
  hang(on: boolean, only?: RegExp): void;
  /** Delta tokens handed out so far answer 410 resyncRequired. */
  expireDeltaTokens(): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Writes a Reply: a Buffer body as it is, no body as none, any other as JSON. */
function send(res: ServerResponse, r: Reply): void {
  if (r.body === undefined || Buffer.isBuffer(r.body)) {
    res.writeHead(r.status, r.headers);
    res.end(r.body);
    return;
  }
  res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
  res.end(JSON.stringify(r.body));
}

/**
 * A local HTTPS server speaking the Microsoft identity platform token endpoint (client
 * credentials with a secret or a certificate; fake-graph-identity.ts) and the Microsoft Graph
 * drive endpoints the SharePoint connector uses (fake-graph-routes.ts) over one in-memory document
 * library (fake-graph-drive.ts): site drives, items by id and by path (`root:/a/b:`), children with
 * `$top` and `@odata.nextLink`, `/content` (302 to a pre-authenticated download URL), and
 * `root/delta` with `token=latest`, `@odata.nextLink`/`@odata.deltaLink`, `deleted` facets and 410
 * for expired tokens. Like SharePoint, delta items carry no `parentReference.path`. This file
 * routes requests, records them and injects the faults (throttling, hanging, expired tokens).
 */
export async function startFakeGraph(o: { pageSize?: number } = {}): Promise<FakeGraph> {
  const { cert, key } = await selfSignedPair();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-graph-'));
  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, cert);

  const identity = await FakeIdentity.create();
  const drive = new FakeDrive();
  const calls: FakeGraphCall[] = [];
  const throttles: Array<{ status: number; retryAfter: number }> = [];
  let hanging = false;
  let hangOnly: RegExp | undefined;
  let expiredBelow = -1;
  const pending: ServerResponse[] = [];
  let base = '';

  const handleGraph = (res: ServerResponse, url: URL, rest: string) => {
    const throttle = throttles.shift();
    if (throttle)
      return send(res, {
        status: throttle.status,
        body: {
          error: {
            code: throttle.status === 429 ? 'TooManyRequests' : 'serviceNotAvailable',
            message: 'slow down',
          },
        },
        headers: { 'retry-after': String(throttle.retryAfter) },
      });
    send(res, driveReply(drive, url, rest, { base, pageSize: fake.pageSize, expiredBelow }));
  };

  const server = https.createServer({ cert, key }, (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'https://localhost');
      const authorized = identity.authorizes(req.headers.authorization ?? '');
      calls.push({
        method: req.method ?? 'GET',
        path: url.pathname + url.search,
        authorized,
        at: Date.now(),
      });
      const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
      if (token && req.method === 'POST') {
        const form = new URLSearchParams(await readBody(req));
        fake.tokenRequests++;
        return send(res, identity.token(form, decodeURIComponent(token[1])));
      }
      // Pre-authenticated download URL: no bearer token needed (and none must be sent here).
      if (url.pathname.startsWith('/download/')) return send(res, downloadReply(drive, url));
      if (!url.pathname.startsWith('/v1.0/'))
        return send(res, graphError(404, 'notFound', 'Unknown endpoint'));
      if (hanging && (!hangOnly || hangOnly.test(url.pathname + url.search))) {
        pending.push(res);
        return;
      }
      if (!authorized)
        return send(res, graphError(401, 'InvalidAuthenticationToken', 'Access token is empty or invalid.'));
      handleGraph(res, url, url.pathname.slice('/v1.0'.length));
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  base = `https://127.0.0.1:${port}/v1.0`;

  const fake: FakeGraph = {
    authorityHost: `https://127.0.0.1:${port}`,
    graphBaseUrl: base,
    caFile,
    calls,
    tokenRequests: 0,
    app: identity.app,
    siteId: drive.siteId,
    driveId: drive.id,
    pageSize: o.pageSize ?? 200,
    addFile: (filePath, content) => drive.addFile(filePath, content),
    updateFile: (filePath, content) => drive.updateFile(filePath, content),
    deleteFile: (filePath) => drive.deleteFile(filePath),
    renameFile: (filePath, newName) => drive.renameFile(filePath, newName),
    addFiles: (folder, count, content) => drive.addFiles(folder, count, content),
    itemIdOf: (filePath) => drive.itemIdOf(filePath),
    throttleNext(count, retryAfterSeconds, status = 429) {
      for (let i = 0; i < count; i++) throttles.push({ status, retryAfter: retryAfterSeconds });
    },
    hang(on, only) {
      hanging = on;
      hangOnly = only;
      if (!on) for (const r of pending.splice(0)) r.destroy();
    },
    expireDeltaTokens() {
      expiredBelow = drive.changeCount;
    },
    async close() {
      for (const r of pending.splice(0)) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return fake;
}
