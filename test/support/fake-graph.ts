import { createPublicKey, randomBytes, randomUUID, verify, X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** A file or folder of the fake drive. */
interface Item {
  id: string;
  name: string;
  parentId: string | null;
  folder: boolean;
  content?: Buffer;
  version: number;
  modified: string;
  deleted?: boolean;
  /** Position in the change log of the last change. */
  seq: number;
}

interface Drive {
  id: string;
  siteId: string;
  rootId: string;
  items: Map<string, Item>;
  children: Map<string, string[]>;
  /** itemId per change, in order; a delta token is a position in this log. */
  log: string[];
}

export interface FakeGraphCall {
  method: string;
  path: string;
  authorized: boolean;
  at: number;
}

export interface FakeGraphApp {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** Certificate credential of the same app: PEM private key and SHA-1/SHA-256 thumbprints. */
  certificate: { privateKey: string; thumbprintSha1: string; thumbprintSha256: string };
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

async function selfSignedPair(): Promise<{ cert: string; key: string }> {
  const selfsigned = await import('selfsigned');
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 7 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/**
 * A local HTTPS server speaking the Microsoft identity platform token endpoint (client
 * credentials with a secret) and the Microsoft Graph drive endpoints the SharePoint connector
 * uses: site drives, items by id and by path (`root:/a/b:`), children with `$top` and
 * `@odata.nextLink`, `/content` (302 to a pre-authenticated download URL), and `root/delta`
 * with `token=latest`, `@odata.nextLink`/`@odata.deltaLink`, `deleted` facets and 410 for
 * expired tokens. Like SharePoint, delta items carry no `parentReference.path`.
 */
export async function startFakeGraph(o: { pageSize?: number } = {}): Promise<FakeGraph> {
  const { cert, key } = await selfSignedPair();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-graph-'));
  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, cert);

  const appCert = await selfSignedPair();
  const x509 = new X509Certificate(appCert.cert);
  const app: FakeGraphApp = {
    tenantId: randomUUID(),
    clientId: randomUUID(),
    clientSecret: `secret-${randomBytes(12).toString('hex')}`,
    certificate: {
      privateKey: appCert.key,
      thumbprintSha1: x509.fingerprint.replace(/:/g, '').toLowerCase(),
      thumbprintSha256: x509.fingerprint256.replace(/:/g, '').toLowerCase(),
    },
  };
  const appPublicKey = createPublicKey(appCert.cert);
  /** A client assertion (RFC 7523) signed with the app certificate's key, for this tenant's token URL. */
  const validAssertion = (jwt: string, tenant: string): boolean => {
    const parts = jwt.split('.');
    if (parts.length !== 3) return false;
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as Record<string, string>;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    const data = Buffer.from(`${parts[0]}.${parts[1]}`);
    const sig = Buffer.from(parts[2], 'base64url');
    const ok =
      header.alg === 'PS256'
        ? verify(
            'sha256',
            data,
            { key: appPublicKey, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: 32 },
            sig,
          )
        : header.alg === 'RS256' && verify('sha256', data, appPublicKey, sig);
    const aud = String(claims.aud ?? '');
    return (
      ok &&
      claims.iss === app.clientId &&
      claims.sub === app.clientId &&
      aud.includes(`/${tenant}/oauth2/v2.0/token`) &&
      Number(claims.exp) > Date.now() / 1000
    );
  };
  const siteId = `contoso.sharepoint.com,${randomUUID()},${randomUUID()}`;
  const driveId = `b!${randomBytes(24).toString('base64url')}`;
  const tokens = new Set<string>();
  const calls: FakeGraphCall[] = [];
  const throttles: Array<{ status: number; retryAfter: number }> = [];
  let hanging = false;
  let hangOnly: RegExp | undefined;
  let expiredBelow = -1;
  const pending: ServerResponse[] = [];

  const drive: Drive = {
    id: driveId,
    siteId,
    rootId: 'root-' + randomBytes(6).toString('hex'),
    items: new Map(),
    children: new Map(),
    log: [],
  };
  const now = () => new Date().toISOString();
  drive.items.set(drive.rootId, {
    id: drive.rootId,
    name: 'root',
    parentId: null,
    folder: true,
    version: 1,
    modified: now(),
    seq: 0,
  });
  drive.children.set(drive.rootId, []);

  const touch = (item: Item) => {
    drive.log.push(item.id);
    item.seq = drive.log.length;
  };
  const pathOf = (item: Item): string => {
    const parts: string[] = [];
    let cur: Item | undefined = item;
    while (cur && cur.parentId !== null) {
      parts.unshift(cur.name);
      cur = drive.items.get(cur.parentId);
    }
    return parts.join('/');
  };
  const childNamed = (parentId: string, name: string): Item | undefined => {
    for (const id of drive.children.get(parentId) ?? []) {
      const it = drive.items.get(id)!;
      if (!it.deleted && it.name.toLowerCase() === name.toLowerCase()) return it;
    }
    return undefined;
  };
  const resolve = (p: string): Item | undefined => {
    let cur = drive.items.get(drive.rootId)!;
    for (const seg of p.split('/').filter(Boolean)) {
      const next = childNamed(cur.id, seg);
      if (!next) return undefined;
      cur = next;
    }
    return cur;
  };
  const ensureFolder = (p: string): Item => {
    let cur = drive.items.get(drive.rootId)!;
    for (const seg of p.split('/').filter(Boolean)) {
      let next = childNamed(cur.id, seg);
      if (!next) {
        next = {
          id: randomUUID(),
          name: seg,
          parentId: cur.id,
          folder: true,
          version: 1,
          modified: now(),
          seq: 0,
        };
        drive.items.set(next.id, next);
        drive.children.get(cur.id)!.push(next.id);
        drive.children.set(next.id, []);
        touch(next);
      }
      cur = next;
    }
    return cur;
  };
  const split = (p: string) => {
    const i = p.lastIndexOf('/');
    return i < 0 ? { folder: '', name: p } : { folder: p.slice(0, i), name: p.slice(i + 1) };
  };

  let base = '';
  const itemJson = (it: Item, withPath = true) => {
    const parent = it.parentId ? drive.items.get(it.parentId)! : undefined;
    const parentPath = parent ? pathOf(parent) : '';
    const out: Record<string, unknown> = {
      id: it.id,
      name: it.name,
      lastModifiedDateTime: it.modified,
      eTag: `"{${it.id}},${it.version}"`,
      cTag: `"c:{${it.id}},${it.version}"`,
      webUrl: `https://contoso.sharepoint.com/sites/docs/Shared%20Documents/${encodeURI(pathOf(it))}`,
      parentReference: parent
        ? {
            driveId,
            id: parent.id,
            ...(withPath
              ? { path: `/drives/${driveId}/root:${parentPath ? '/' + encodeURI(parentPath) : ''}` }
              : {}),
          }
        : { driveId },
    };
    if (it.folder) out.folder = { childCount: (drive.children.get(it.id) ?? []).length };
    else {
      out.file = { mimeType: it.name.endsWith('.pdf') ? 'application/pdf' : 'text/plain' };
      out.size = it.content?.length ?? 0;
    }
    return out;
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const graphError = (res: ServerResponse, status: number, code: string, message: string) =>
    send(res, status, { error: { code, message, innerError: { 'request-id': randomUUID() } } });

  const handleToken = async (req: IncomingMessage, res: ServerResponse, tenant: string) => {
    const form = new URLSearchParams(await readBody(req));
    fake.tokenRequests++;
    if (tenant !== app.tenantId)
      return send(res, 400, {
        error: 'invalid_request',
        error_description: `AADSTS90002: Tenant '${tenant}' not found.`,
        error_codes: [90002],
      });
    if (form.get('grant_type') !== 'client_credentials' || !form.get('scope')?.endsWith('/.default'))
      return send(res, 400, { error: 'invalid_request', error_description: 'AADSTS900144: bad request' });
    if (form.get('client_id') !== app.clientId)
      return send(res, 400, {
        error: 'unauthorized_client',
        error_description: `AADSTS700016: Application not found in the directory.`,
      });
    const assertion = form.get('client_assertion');
    const byCertificate =
      assertion !== null &&
      form.get('client_assertion_type') === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' &&
      validAssertion(assertion, tenant);
    if (!byCertificate && form.get('client_secret') !== app.clientSecret)
      return send(res, 401, {
        error: 'invalid_client',
        error_description: 'AADSTS7000215: Invalid client secret provided.',
        error_codes: [7000215],
      });
    const token = randomBytes(24).toString('base64url');
    tokens.add(token);
    send(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
  };

  const deltaPage = (res: ServerResponse, from: number, skip: number) => {
    // Latest state of every item changed after `from`, once, in log order.
    const seen = new Set<string>();
    const changed: Item[] = [];
    for (let i = from; i < drive.log.length; i++) {
      const it = drive.items.get(drive.log[i])!;
      if (seen.has(it.id) || it.seq !== i + 1) continue;
      seen.add(it.id);
      changed.push(it);
    }
    const page = changed.slice(skip, skip + fake.pageSize);
    const value = page.map((it) =>
      it.deleted
        ? { id: it.id, deleted: { state: 'deleted' }, parentReference: { driveId } }
        : itemJson(it, false),
    );
    const body: Record<string, unknown> = { value };
    if (skip + fake.pageSize < changed.length)
      body['@odata.nextLink'] =
        `${base}/drives/${driveId}/root/delta?token=${from}&$skiptoken=${skip + fake.pageSize}`;
    else body['@odata.deltaLink'] = `${base}/drives/${driveId}/root/delta?token=${drive.log.length}`;
    send(res, 200, body);
  };

  const handleGraph = (req: IncomingMessage, res: ServerResponse, url: URL, rest: string) => {
    const throttle = throttles.shift();
    if (throttle)
      return send(
        res,
        throttle.status,
        {
          error: {
            code: throttle.status === 429 ? 'TooManyRequests' : 'serviceNotAvailable',
            message: 'slow down',
          },
        },
        { 'retry-after': String(throttle.retryAfter) },
      );
    const m = /^\/drives\/([^/]+)(\/.*)?$/.exec(rest);
    const siteDrive = /^\/sites\/([^/]+)\/drives\/([^/]+)$/.exec(rest);
    if (siteDrive) {
      if (decodeURIComponent(siteDrive[1]) !== siteId)
        return graphError(res, 404, 'itemNotFound', 'Requested site could not be found');
      if (decodeURIComponent(siteDrive[2]) !== driveId)
        return graphError(res, 404, 'itemNotFound', 'The requested drive was not found');
      return send(res, 200, { id: driveId, name: 'Documents', driveType: 'documentLibrary' });
    }
    if (!m) return graphError(res, 400, 'invalidRequest', `Unsupported path ${rest}`);
    if (decodeURIComponent(m[1]) !== driveId) return graphError(res, 404, 'itemNotFound', 'Drive not found');
    const sub = m[2] ?? '';
    const q = url.searchParams;
    if (sub === '/root/delta') {
      const token = q.get('token');
      if (token === 'latest')
        return send(res, 200, {
          value: [],
          '@odata.deltaLink': `${base}/drives/${driveId}/root/delta?token=${drive.log.length}`,
        });
      const from = Number(token ?? '0');
      if (!Number.isInteger(from) || from < 0 || from > drive.log.length)
        return graphError(res, 400, 'invalidRequest', 'Invalid delta token');
      if (from <= expiredBelow) return graphError(res, 410, 'resyncRequired', 'Resync required');
      return deltaPage(res, from, Number(q.get('$skiptoken') ?? '0'));
    }
    let item: Item | undefined;
    let tail = '';
    const byPath = /^\/root:(\/[^:]*)?(?::(\/.*)?)?$/.exec(sub);
    const byId = /^\/items\/([^/]+)(\/.*)?$/.exec(sub);
    if (sub === '/root' || sub.startsWith('/root/')) {
      item = drive.items.get(drive.rootId);
      tail = sub.slice('/root'.length);
    } else if (byPath) {
      item = resolve(decodeURIComponent(byPath[1] ?? ''));
      tail = byPath[2] ?? '';
    } else if (byId) {
      item = drive.items.get(decodeURIComponent(byId[1]));
      tail = byId[2] ?? '';
    }
    if (!item || item.deleted)
      return graphError(res, 404, 'itemNotFound', 'The resource could not be found.');
    if (tail === '' || tail === '/') return send(res, 200, itemJson(item));
    if (tail === '/children') {
      if (!item.folder) return graphError(res, 400, 'invalidRequest', 'Not a folder');
      const top = Math.min(Number(q.get('$top') ?? fake.pageSize), fake.pageSize);
      const skip = Number(q.get('$skiptoken') ?? '0');
      const kids = (drive.children.get(item.id) ?? [])
        .map((id) => drive.items.get(id)!)
        .filter((k) => !k.deleted);
      const body: Record<string, unknown> = { value: kids.slice(skip, skip + top).map((k) => itemJson(k)) };
      if (skip + top < kids.length)
        body['@odata.nextLink'] =
          `${base}/drives/${driveId}/items/${item.id}/children?$top=${top}&$skiptoken=${skip + top}`;
      return send(res, 200, body);
    }
    if (tail === '/content') {
      if (item.folder) return graphError(res, 400, 'invalidRequest', 'Not a file');
      // Another host name (like SharePoint's download host), so the client must drop the token.
      const download = base.replace('127.0.0.1', 'localhost').replace(/\/v1\.0$/, '');
      res.writeHead(302, { location: `${download}/download/${item.id}?sig=${randomUUID()}` });
      return res.end();
    }
    return graphError(res, 400, 'invalidRequest', `Unsupported path ${rest}`);
  };

  const server = https.createServer({ cert, key }, (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'https://localhost');
      const auth = req.headers.authorization ?? '';
      const authorized = auth.startsWith('Bearer ') && tokens.has(auth.slice(7));
      calls.push({
        method: req.method ?? 'GET',
        path: url.pathname + url.search,
        authorized,
        at: Date.now(),
      });
      const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
      if (token && req.method === 'POST') return handleToken(req, res, decodeURIComponent(token[1]));
      if (url.pathname.startsWith('/download/')) {
        // Pre-authenticated download URL: no bearer token needed (and none must be sent here).
        const it = drive.items.get(url.pathname.slice('/download/'.length));
        if (!it || it.deleted || !url.searchParams.get('sig'))
          return graphError(res, 404, 'itemNotFound', 'gone');
        res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-length': String(it.content?.length ?? 0),
          etag: `"{${it.id}},${it.version}"`,
        });
        return res.end(it.content);
      }
      if (!url.pathname.startsWith('/v1.0/')) return graphError(res, 404, 'notFound', 'Unknown endpoint');
      if (hanging && (!hangOnly || hangOnly.test(url.pathname + url.search))) {
        pending.push(res);
        return;
      }
      if (!authorized)
        return graphError(res, 401, 'InvalidAuthenticationToken', 'Access token is empty or invalid.');
      handleGraph(req, res, url, url.pathname.slice('/v1.0'.length));
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
    app,
    siteId,
    driveId,
    pageSize: o.pageSize ?? 200,
    addFile(filePath, content) {
      const { folder, name } = split(filePath);
      const parent = ensureFolder(folder);
      if (childNamed(parent.id, name)) throw new Error(`exists: ${filePath}`);
      const it: Item = {
        id: randomUUID(),
        name,
        parentId: parent.id,
        folder: false,
        content: Buffer.from(content),
        version: 1,
        modified: now(),
        seq: 0,
      };
      drive.items.set(it.id, it);
      drive.children.get(parent.id)!.push(it.id);
      touch(it);
      return it.id;
    },
    updateFile(filePath, content) {
      const it = resolve(filePath);
      if (!it || it.folder) throw new Error(`no file ${filePath}`);
      it.content = Buffer.from(content);
      it.version++;
      it.modified = now();
      touch(it);
    },
    deleteFile(filePath) {
      const it = resolve(filePath);
      if (!it) throw new Error(`no file ${filePath}`);
      it.deleted = true;
      touch(it);
    },
    renameFile(filePath, newName) {
      const it = resolve(filePath);
      if (!it) throw new Error(`no file ${filePath}`);
      it.name = newName;
      it.version++;
      touch(it);
    },
    addFiles(folder, count, content) {
      const parent = ensureFolder(folder);
      const kids = drive.children.get(parent.id)!;
      for (let i = 0; i < count; i++) {
        const it: Item = {
          id: randomUUID(),
          name: `f-${String(i).padStart(5, '0')}.txt`,
          parentId: parent.id,
          folder: false,
          content: Buffer.from(content(i)),
          version: 1,
          modified: now(),
          seq: 0,
        };
        drive.items.set(it.id, it);
        kids.push(it.id);
        touch(it);
      }
    },
    itemIdOf(filePath) {
      const it = resolve(filePath);
      if (!it) throw new Error(`no item ${filePath}`);
      return it.id;
    },
    throttleNext(count, retryAfterSeconds, status = 429) {
      for (let i = 0; i < count; i++) throttles.push({ status, retryAfter: retryAfterSeconds });
    },
    hang(on, only) {
      hanging = on;
      hangOnly = only;
      if (!on) for (const r of pending.splice(0)) r.destroy();
    },
    expireDeltaTokens() {
      expiredBelow = drive.log.length;
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
