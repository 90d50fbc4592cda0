import { createHash, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const FOLDER = 'application/vnd.google-apps.folder';

interface GFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  content: Buffer;
  version: number;
  modifiedTime: string;
  trashed: boolean;
  removed: boolean;
  driveId?: string;
}

export interface FakeGoogleCall {
  method: string;
  path: string;
  authorized: boolean;
  at: number;
}

export interface FakeGoogle {
  /** GOOGLE_API_ROOT_URL */
  apiRootUrl: string;
  /** GOOGLE_TOKEN_URL */
  tokenUrl: string;
  /** A service account key file as Google issues it (its token_uri points at Google, and is ignored). */
  serviceAccountKey: Record<string, string>;
  /** Users the service account may impersonate (domain-wide delegation). */
  delegatedUsers: Set<string>;
  /** A folder in My Drive shared with the service account, and a shared drive. */
  rootFolderId: string;
  sharedDriveId: string;
  calls: FakeGoogleCall[];
  pageSize: number;
  addFolder(parentId: string, name: string): string;
  addFile(parentId: string, name: string, content: string | Buffer, mimeType?: string): string;
  /** A Google Docs/Sheets/Slides file; `exported` is what files.export returns per target MIME type. */
  addGoogleFile(
    parentId: string,
    name: string,
    kind: 'document' | 'spreadsheet' | 'presentation',
    text: string,
  ): string;
  updateFile(id: string, content: string | Buffer): void;
  trashFile(id: string): void;
  deleteFile(id: string): void;
  moveFile(id: string, newParentId: string): void;
  throttleNext(count: number, retryAfterSeconds: number, status?: 429 | 503): void;
  exports: Array<{ fileId: string; mimeType: string }>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

const id = () =>
  randomBytes(12)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x');

/**
 * A local HTTP server speaking Google's OAuth 2.0 token endpoint for service accounts (verifies
 * the RS256 JWT assertion against the key's public half, its audience, expiry and delegation
 * subject) and the Drive v3 endpoints the connector uses: files.list (`'<id>' in parents`,
 * pageToken paging), files.get (metadata and `alt=media`), files.export, drives.get,
 * changes.getStartPageToken and changes.list. Errors use Google's JSON error shape.
 */
export async function startFakeGoogle(o: { pageSize?: number } = {}): Promise<FakeGoogle> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = `indexer@docqa-test-${randomBytes(3).toString('hex')}.iam.gserviceaccount.com`;
  const keyId = randomBytes(20).toString('hex');
  const tokens = new Map<string, string | undefined>();
  const files = new Map<string, GFile>();
  const log: string[] = [];
  const calls: FakeGoogleCall[] = [];
  const throttles: Array<{ status: number; retryAfter: number }> = [];
  const exportsSeen: Array<{ fileId: string; mimeType: string }> = [];
  const now = () => new Date().toISOString();
  const rootFolderId = id();
  const sharedDriveId = id();
  const myDriveRoot = id();
  const touch = (f: GFile) => log.push(f.id);

  files.set(myDriveRoot, {
    id: myDriveRoot,
    name: 'My Drive',
    mimeType: FOLDER,
    parents: [],
    content: Buffer.alloc(0),
    version: 1,
    modifiedTime: now(),
    trashed: false,
    removed: false,
  });
  files.set(rootFolderId, {
    id: rootFolderId,
    name: 'Shared with indexer',
    mimeType: FOLDER,
    parents: [myDriveRoot],
    content: Buffer.alloc(0),
    version: 1,
    modifiedTime: now(),
    trashed: false,
    removed: false,
  });
  // The root folder of a shared drive has the drive's id.
  files.set(sharedDriveId, {
    id: sharedDriveId,
    name: 'Team drive',
    mimeType: FOLDER,
    parents: [],
    content: Buffer.alloc(0),
    version: 1,
    modifiedTime: now(),
    trashed: false,
    removed: false,
    driveId: sharedDriveId,
  });

  let base = '';
  const driveOf = (parentId: string): string | undefined => files.get(parentId)?.driveId;
  const fileJson = (f: GFile) => ({
    kind: 'drive#file',
    id: f.id,
    name: f.name,
    mimeType: f.mimeType,
    parents: f.parents,
    version: String(f.version),
    modifiedTime: f.modifiedTime,
    trashed: f.trashed,
    webViewLink: f.mimeType.startsWith('application/vnd.google-apps.')
      ? `https://docs.google.com/${f.mimeType.split('.').pop()}/d/${f.id}/edit`
      : `https://drive.google.com/file/d/${f.id}/view`,
    ...(f.driveId ? { driveId: f.driveId } : {}),
    ...(f.mimeType.startsWith('application/vnd.google-apps.')
      ? {}
      : {
          size: String(f.content.length),
          md5Checksum: createHash('md5').update(f.content).digest('hex'),
        }),
  });
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
    res.end(JSON.stringify(body));
  };
  const gError = (res: ServerResponse, status: number, reason: string, message: string, headers = {}) =>
    send(
      res,
      status,
      { error: { code: status, message, errors: [{ domain: 'global', reason, message }] } },
      headers,
    );

  const handleToken = async (req: IncomingMessage, res: ServerResponse) => {
    const form = new URLSearchParams(await readBody(req));
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return send(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
    const parts = (form.get('assertion') ?? '').split('.');
    if (parts.length !== 3)
      return send(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT' });
    const ok = createVerify('RSA-SHA256')
      .update(`${parts[0]}.${parts[1]}`)
      .verify(publicKey, Buffer.from(parts[2], 'base64url'));
    if (!ok) return send(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    const t = Math.floor(Date.now() / 1000);
    if (claims.iss !== clientEmail)
      return send(res, 400, { error: 'invalid_grant', error_description: 'Invalid email or User ID' });
    if (claims.aud !== fake.tokenUrl)
      return send(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT: audience' });
    if (typeof claims.exp !== 'number' || claims.exp < t || (claims.iat as number) > t + 60)
      return send(res, 400, {
        error: 'invalid_grant',
        error_description: 'Invalid JWT: Token must be a short-lived token',
      });
    if (!String(claims.scope ?? '').includes('https://www.googleapis.com/auth/drive'))
      return send(res, 400, { error: 'invalid_scope', error_description: 'Bad scope' });
    if (claims.sub !== undefined && !fake.delegatedUsers.has(String(claims.sub)))
      return send(res, 401, {
        error: 'unauthorized_client',
        error_description: 'Client is unauthorized to retrieve access tokens using this method.',
      });
    const token = `ya29.${randomBytes(24).toString('base64url')}`;
    tokens.set(token, claims.sub as string | undefined);
    send(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  };

  const visible = (f: GFile | undefined): f is GFile => !!f && !f.removed;

  const handleDrive = (req: IncomingMessage, res: ServerResponse, url: URL, rest: string) => {
    const t = throttles.shift();
    if (t)
      return gError(res, t.status, t.status === 429 ? 'rateLimitExceeded' : 'backendError', 'Rate limit', {
        'retry-after': String(t.retryAfter),
      });
    const q = url.searchParams;
    const pageSize = Math.min(Number(q.get('pageSize') ?? 100), fake.pageSize);
    if (rest === '/files') {
      const m = /^'([A-Za-z0-9_-]+)' in parents and trashed = false$/.exec(q.get('q') ?? '');
      if (!m) return gError(res, 400, 'invalid', 'Invalid Value');
      const parent = files.get(m[1]);
      if (!visible(parent)) return gError(res, 404, 'notFound', `File not found: ${m[1]}.`);
      const kids = [...files.values()].filter((f) => visible(f) && !f.trashed && f.parents.includes(m[1]));
      const start = Number(q.get('pageToken') ?? '0');
      const page = kids.slice(start, start + pageSize);
      return send(res, 200, {
        kind: 'drive#fileList',
        files: page.map(fileJson),
        ...(start + pageSize < kids.length ? { nextPageToken: String(start + pageSize) } : {}),
      });
    }
    const drv = /^\/drives\/([^/]+)$/.exec(rest);
    if (drv) {
      if (drv[1] !== sharedDriveId) return gError(res, 404, 'notFound', `Shared drive not found: ${drv[1]}`);
      return send(res, 200, { kind: 'drive#drive', id: sharedDriveId, name: 'Team drive' });
    }
    if (rest === '/changes/startPageToken') return send(res, 200, { startPageToken: String(log.length) });
    if (rest === '/changes') {
      const token = q.get('pageToken') ?? '';
      const [fromS, skipS] = token.split(':');
      const from = Number(fromS);
      if (!/^\d+$/.test(fromS ?? '') || from > log.length)
        return gError(res, 400, 'invalid', 'Invalid Value');
      const seen = new Set<string>();
      const ids: string[] = [];
      for (let i = log.length - 1; i >= from; i--)
        if (!seen.has(log[i])) {
          seen.add(log[i]);
          ids.unshift(log[i]);
        }
      const skip = Number(skipS ?? '0');
      const page = ids.slice(skip, skip + pageSize);
      return send(res, 200, {
        kind: 'drive#changeList',
        changes: page.map((fid) => {
          const f = files.get(fid)!;
          return f.removed
            ? { kind: 'drive#change', changeType: 'file', fileId: fid, removed: true }
            : { kind: 'drive#change', changeType: 'file', fileId: fid, removed: false, file: fileJson(f) };
        }),
        ...(skip + pageSize < ids.length
          ? { nextPageToken: `${from}:${skip + pageSize}` }
          : { newStartPageToken: String(log.length) }),
      });
    }
    const fm = /^\/files\/([^/]+)(\/export)?$/.exec(rest);
    if (fm) {
      const f = files.get(fm[1]);
      if (!visible(f)) return gError(res, 404, 'notFound', `File not found: ${fm[1]}.`);
      if (fm[2]) {
        const mime = q.get('mimeType') ?? '';
        if (!f.mimeType.startsWith('application/vnd.google-apps.'))
          return gError(res, 403, 'fileNotExportable', 'Export only supports Docs Editors files.');
        const allowed: Record<string, string[]> = {
          'application/vnd.google-apps.document': ['text/plain', 'application/pdf'],
          'application/vnd.google-apps.spreadsheet': ['text/csv', 'application/pdf'],
          'application/vnd.google-apps.presentation': ['text/plain', 'application/pdf'],
        };
        if (!allowed[f.mimeType]?.includes(mime))
          return gError(res, 400, 'badRequest', 'Invalid export format');
        exportsSeen.push({ fileId: f.id, mimeType: mime });
        res.writeHead(200, { 'content-type': mime });
        return res.end(f.content);
      }
      if (q.get('alt') === 'media') {
        if (f.mimeType.startsWith('application/vnd.google-apps.'))
          return gError(res, 403, 'fileNotDownloadable', 'Only files with binary content can be downloaded.');
        res.writeHead(200, { 'content-type': f.mimeType, 'content-length': String(f.content.length) });
        return res.end(f.content);
      }
      return send(res, 200, fileJson(f));
    }
    return gError(res, 404, 'notFound', `Unknown endpoint ${rest}`);
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const auth = req.headers.authorization ?? '';
      const authorized = auth.startsWith('Bearer ') && tokens.has(auth.slice(7));
      calls.push({
        method: req.method ?? 'GET',
        path: url.pathname + url.search,
        authorized,
        at: Date.now(),
      });
      if (url.pathname === '/token' && req.method === 'POST') return handleToken(req, res);
      if (!url.pathname.startsWith('/drive/v3/')) return gError(res, 404, 'notFound', 'Not found');
      if (!authorized) return gError(res, 401, 'authError', 'Invalid Credentials');
      handleDrive(req, res, url, url.pathname.slice('/drive/v3'.length));
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;

  const add = (parentId: string, name: string, mimeType: string, content: Buffer): string => {
    const f: GFile = {
      id: id(),
      name,
      mimeType,
      parents: [parentId],
      content,
      version: 1,
      modifiedTime: now(),
      trashed: false,
      removed: false,
      driveId: driveOf(parentId),
    };
    files.set(f.id, f);
    touch(f);
    return f.id;
  };
  const must = (fid: string) => {
    const f = files.get(fid);
    if (!f) throw new Error(`no file ${fid}`);
    return f;
  };

  const fake: FakeGoogle = {
    apiRootUrl: `${base}/`,
    tokenUrl: `${base}/token`,
    serviceAccountKey: {
      type: 'service_account',
      project_id: 'docqa-test',
      private_key_id: keyId,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: clientEmail,
      client_id: '1234567890',
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: 'https://oauth2.googleapis.com/token',
    },
    delegatedUsers: new Set(['admin@example.com']),
    rootFolderId,
    sharedDriveId,
    calls,
    pageSize: o.pageSize ?? 100,
    exports: exportsSeen,
    addFolder: (parentId, name) => add(parentId, name, FOLDER, Buffer.alloc(0)),
    addFile: (parentId, name, content, mimeType = 'text/plain') =>
      add(parentId, name, mimeType, Buffer.from(content)),
    addGoogleFile: (parentId, name, kind, text) =>
      add(parentId, name, `application/vnd.google-apps.${kind}`, Buffer.from(text)),
    updateFile(fid, content) {
      const f = must(fid);
      f.content = Buffer.from(content);
      f.version++;
      f.modifiedTime = now();
      touch(f);
    },
    trashFile(fid) {
      must(fid).trashed = true;
      touch(must(fid));
    },
    deleteFile(fid) {
      must(fid).removed = true;
      touch(must(fid));
    },
    moveFile(fid, newParentId) {
      const f = must(fid);
      f.parents = [newParentId];
      f.driveId = driveOf(newParentId);
      f.version++;
      touch(f);
    },
    throttleNext(count, retryAfterSeconds, status = 429) {
      for (let i = 0; i < count; i++) throttles.push({ status, retryAfter: retryAfterSeconds });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return fake;
}
