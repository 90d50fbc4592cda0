import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { drive, drive_v3 } from '@googleapis/drive';
import { SOURCES_CONFIG, SourcesConfig } from '@docqa/common';
import type { SourceType } from '@docqa/db';
import { decodeListCursor, encodeListCursor } from '../http/list-cursor';
import { createSourceFetch, SourceFetch } from '../http/source-fetch';
import { ChangesPage, IncrementalSourceConnector, ListedObject } from '../incremental-source';
import { DownloadedFile, SourceError, SourcePage } from '../source.port';
import { GoogleDriveCredentials, parseGoogleDriveCredentials } from './gdrive-credentials';
import { DEFAULT_GOOGLE_TOKEN_URL, ServiceAccountTokens } from './service-account-token';
import { SOURCE_REQUEST_TIMEOUT_MS } from '../source-deadlines';

export const DEFAULT_GOOGLE_API_ROOT_URL = 'https://www.googleapis.com/';
const FOLDER = 'application/vnd.google-apps.folder';
const FILE_FIELDS =
  'id,name,mimeType,md5Checksum,version,size,modifiedTime,webViewLink,parents,driveId,trashed';
/** Google Docs, Sheets and Slides have no bytes of their own: they are exported to these. */
export const GOOGLE_EXPORTS: Readonly<Record<string, { mimeType: string; ext: string }>> = {
  'application/vnd.google-apps.document': { mimeType: 'text/plain', ext: 'txt' },
  'application/vnd.google-apps.spreadsheet': { mimeType: 'text/csv', ext: 'csv' },
  'application/vnd.google-apps.presentation': { mimeType: 'text/plain', ext: 'txt' },
};
const RETRIES = 5;
/** Longest Retry-After honoured inside one call; longer waits are left to the activity's retries. */
const MAX_RETRY_AFTER_MS = 120_000;

interface ListCursor {
  q: Array<[string, string]>;
  c?: [string, string];
  n?: string;
}

type DriveFile = drive_v3.Schema$File;

/** `gdrive://{scope root}/{fileId}`: the scope root (folder or shared drive id) makes a scope a prefix. */
export function googleDriveSourceId(root: string, fileId: string): string {
  return `gdrive://${root}/${fileId}`;
}

export function parseGoogleDriveSourceId(sourceId: string): { root: string; fileId: string } {
  const m = /^gdrive:\/\/([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)$/.exec(sourceId);
  if (!m) throw new SourceError('NOT_FOUND', 'Not a Google Drive source id');
  return { root: m[1], fileId: m[2] };
}

function rootOf(c: GoogleDriveCredentials): string {
  return (c.folderId ?? c.driveId) as string;
}

function statusOf(err: unknown): number | undefined {
  const e = err as { status?: unknown; response?: { status?: unknown } } | null;
  const s = e?.status ?? e?.response?.status;
  return typeof s === 'number' ? s : undefined;
}

function reasonOf(err: unknown): string | undefined {
  const data = (err as { response?: { data?: unknown } } | null)?.response?.data as
    { error?: { errors?: Array<{ reason?: string }>; status?: string } } | undefined;
  return data?.error?.errors?.[0]?.reason ?? data?.error?.status;
}

/** Retry-After (seconds or HTTP date) of a failed response, in ms. */
export function retryAfterMs(err: unknown): number | undefined {
  const h = (err as { response?: { headers?: unknown } } | null)?.response?.headers;
  let v: string | null | undefined;
  if (h && typeof (h as Headers).get === 'function') v = (h as Headers).get('retry-after');
  else if (h && typeof h === 'object') v = (h as Record<string, string>)['retry-after'];
  if (!v) return undefined;
  const secs = Number(v);
  const ms = Number.isFinite(secs) ? secs * 1000 : new Date(v).getTime() - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

const THROTTLE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'backendError']);

/** Whether a Drive failure is throttling or a transient server error worth retrying in place. */
function transient(err: unknown): boolean {
  const s = statusOf(err);
  if (s === 429 || s === 500 || s === 502 || s === 503 || s === 504) return true;
  return s === 403 && THROTTLE_REASONS.has(reasonOf(err) ?? '');
}

export function toDriveSourceError(err: unknown, subject: string): SourceError {
  if (err instanceof SourceError) return err;
  const s = statusOf(err);
  const reason = reasonOf(err);
  const why = reason ? ` (${reason})` : s ? ` (HTTP ${s})` : '';
  if (transient(err))
    return new SourceError('UNAVAILABLE', `${subject}: throttled or failing at Google${why}`);
  if (s === 401 || s === 403) return new SourceError('ACCESS_DENIED', `${subject}: access denied${why}`);
  if (s === 404) return new SourceError('NOT_FOUND', `${subject}: not found${why}`);
  if (s === 400) return new SourceError('NOT_FOUND', `${subject}: rejected by Google Drive${why}`);
  const name = (err as { name?: string; code?: string } | null)?.name;
  const code = (err as { code?: string } | null)?.code;
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'ABORT_ERR' || code === 'ETIMEDOUT')
    return new SourceError('UNAVAILABLE', `${subject}: Google Drive did not answer in time`);
  return new SourceError('UNAVAILABLE', `${subject}: Google Drive is unreachable`);
}

/**
 * Google Drive through the Drive v3 client (@googleapis/drive): a service-account key (optionally
 * with domain-wide delegation), scope = a folder or a shared drive. Full listings walk the folder
 * tree with `nextPageToken` paging; re-syncs read the changes feed from a stored start page token.
 * Google Docs, Sheets and Slides are exported (text, CSV, text). `sourceId` = scope root + file id.
 */
@Injectable()
export class GoogleDriveConnector implements IncrementalSourceConnector<GoogleDriveCredentials> {
  readonly sourceType: SourceType = 'GOOGLEDRIVE';
  private readonly api: drive_v3.Drive;
  private readonly tokens: ServiceAccountTokens;
  private readonly fetchFn: SourceFetch;
  private readonly timeoutMs: number;

  constructor(@Inject(SOURCES_CONFIG) sources: SourcesConfig) {
    this.timeoutMs = sources.requestTimeoutMs ?? SOURCE_REQUEST_TIMEOUT_MS;
    this.fetchFn = createSourceFetch(sources.caFile);
    const rootUrl = (sources.googleApiRootUrl ?? DEFAULT_GOOGLE_API_ROOT_URL).replace(/\/*$/, '/');
    this.api = drive({ version: 'v3', rootUrl, fetchImplementation: this.fetchFn } as drive_v3.Options);
    this.tokens = new ServiceAccountTokens(
      sources.googleTokenUrl ?? DEFAULT_GOOGLE_TOKEN_URL,
      this.fetchFn,
      this.timeoutMs,
    );
  }

  parseCredentials(raw: unknown): GoogleDriveCredentials {
    return parseGoogleDriveCredentials(raw);
  }

  scopeOf(c: GoogleDriveCredentials): string {
    return googleDriveSourceId(rootOf(c), '');
  }

  async check(c: GoogleDriveCredentials): Promise<void> {
    if (c.driveId)
      await this.call(c, `Google shared drive "${c.driveId}"`, (o) =>
        this.api.drives.get({ driveId: c.driveId, fields: 'id,name' }, o),
      );
    if (c.folderId) {
      const subject = `Google Drive folder "${c.folderId}"`;
      const res = await this.call(c, subject, (o) =>
        this.api.files.get(
          { fileId: c.folderId, fields: 'id,name,mimeType,driveId', supportsAllDrives: true },
          o,
        ),
      );
      if (res.data.mimeType !== FOLDER) throw new SourceError('NOT_FOUND', `${subject}: not a folder`);
      if (c.driveId && res.data.driveId !== c.driveId)
        throw new SourceError('NOT_FOUND', `${subject}: not in shared drive "${c.driveId}"`);
    }
  }

  async listPage(c: GoogleDriveCredentials, pageToken: string | null, pageSize: number): Promise<SourcePage> {
    if (pageToken === null) await this.check(c);
    const cur: ListCursor =
      pageToken === null ? { q: [], c: [rootOf(c), ''] } : decodeListCursor<ListCursor>(pageToken);
    if (!cur.c) {
      const next = cur.q.shift();
      if (!next) return { objects: [], nextPageToken: null };
      cur.c = next;
      cur.n = undefined;
    }
    const [folderId, folderPath] = cur.c;
    const res = await this.call(c, `Google Drive folder "${folderPath || folderId}"`, (o) =>
      this.api.files.list(
        {
          q: `'${folderId}' in parents and trashed = false`,
          pageSize: Math.min(Math.max(pageSize, 1), 1000),
          pageToken: cur.n,
          fields: `nextPageToken,files(${FILE_FIELDS})`,
          supportsAllDrives: true,
          includeItemsFromAllDrives: true,
          ...(c.driveId ? { corpora: 'drive', driveId: c.driveId } : {}),
        },
        o,
      ),
    );
    const objects: ListedObject[] = [];
    for (const f of res.data.files ?? []) {
      if (!f.id || !f.name) continue;
      const path = folderPath ? `${folderPath}/${f.name}` : f.name;
      if (f.mimeType === FOLDER) cur.q.push([f.id, path]);
      else {
        const o = this.toObject(c, f, folderPath);
        if (o) objects.push(o);
      }
    }
    if (res.data.nextPageToken) cur.n = res.data.nextPageToken;
    else {
      cur.c = undefined;
      cur.n = undefined;
    }
    const done = !cur.c && cur.q.length === 0;
    return { objects, nextPageToken: done ? null : encodeListCursor(cur) };
  }

  async download(c: GoogleDriveCredentials, sourceId: string, maxBytes: number): Promise<DownloadedFile> {
    const { root, fileId } = parseGoogleDriveSourceId(sourceId);
    if (root !== rootOf(c))
      throw new SourceError('ACCESS_DENIED', 'The file is outside the Google Drive source');
    const subject = `Google Drive file "${fileId}"`;
    const meta = await this.call(c, subject, (o) =>
      this.api.files.get(
        { fileId, fields: 'id,mimeType,size,md5Checksum,version', supportsAllDrives: true },
        o,
      ),
    );
    if (Number(meta.data.size ?? 0) > maxBytes)
      throw new SourceError('TOO_LARGE', `The file is larger than the ${maxBytes}-byte limit`);
    const exportAs = GOOGLE_EXPORTS[meta.data.mimeType ?? ''];
    const idle = new AbortController();
    let timer = setTimeout(() => idle.abort(), this.timeoutMs);
    try {
      const res = await this.call(c, subject, (o) => {
        const opts = { ...o, responseType: 'stream' as const, signal: idle.signal, timeout: 0 };
        return exportAs
          ? this.api.files.export({ fileId, mimeType: exportAs.mimeType }, opts)
          : this.api.files.get({ fileId, alt: 'media', supportsAllDrives: true }, opts);
      });
      const data = res.data as unknown;
      const stream: AsyncIterable<Uint8Array> =
        data && typeof (data as ReadableStream).getReader === 'function'
          ? Readable.fromWeb(data as import('node:stream/web').ReadableStream)
          : (data as Readable);
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of stream) {
          clearTimeout(timer);
          timer = setTimeout(() => idle.abort(), this.timeoutMs);
          size += chunk.length;
          if (size > maxBytes) {
            idle.abort();
            throw new SourceError('TOO_LARGE', `The file is larger than the ${maxBytes}-byte limit`);
          }
          chunks.push(Buffer.from(chunk));
        }
      } catch (err) {
        if (err instanceof SourceError) throw err;
        throw new SourceError('UNAVAILABLE', `${subject}: the download was interrupted`);
      }
      return {
        data: Buffer.concat(chunks, size),
        etag: meta.data.md5Checksum ?? (meta.data.version ? `v${meta.data.version}` : null),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  async latestCursor(c: GoogleDriveCredentials): Promise<string> {
    const res = await this.call(c, 'Google Drive change feed', (o) =>
      this.api.changes.getStartPageToken(
        { supportsAllDrives: true, ...(c.driveId ? { driveId: c.driveId } : {}) },
        o,
      ),
    );
    if (!res.data.startPageToken)
      throw new SourceError('UNAVAILABLE', 'Google Drive returned no start page token');
    return res.data.startPageToken;
  }

  async changesPage(
    c: GoogleDriveCredentials,
    cursor: string,
    pageToken: string | null,
  ): Promise<ChangesPage> {
    let res;
    try {
      res = await this.call(c, 'Google Drive change feed', (o) =>
        this.api.changes.list(
          {
            pageToken: pageToken ?? cursor,
            pageSize: 1000,
            fields: `nextPageToken,newStartPageToken,changes(changeType,fileId,removed,file(${FILE_FIELDS}))`,
            includeRemoved: true,
            supportsAllDrives: true,
            includeItemsFromAllDrives: true,
            ...(c.driveId ? { driveId: c.driveId } : {}),
          },
          o,
        ),
      );
    } catch (err) {
      // An expired or foreign page token: start over with a full listing.
      if (err instanceof SourceError && err.kind === 'NOT_FOUND')
        return {
          upserted: [],
          removedItemIds: [],
          nextPageToken: null,
          nextCursor: null,
          resyncRequired: true,
        };
      throw err;
    }
    const upserted: ListedObject[] = [];
    const removedItemIds: string[] = [];
    const folders = new Map<string, { name: string; parents: string[] } | null>();
    for (const ch of res.data.changes ?? []) {
      if (ch.changeType && ch.changeType !== 'file') continue;
      const f = ch.file;
      if (!ch.fileId) continue;
      if (ch.removed || !f || f.trashed) {
        removedItemIds.push(ch.fileId);
        continue;
      }
      if (f.mimeType === FOLDER) continue;
      const folderPath = await this.pathInScope(c, f, folders);
      const o = folderPath === null ? null : this.toObject(c, f, folderPath);
      if (o) upserted.push(o);
      else removedItemIds.push(ch.fileId);
    }
    return {
      upserted,
      removedItemIds,
      nextPageToken: res.data.nextPageToken ?? null,
      nextCursor: res.data.nextPageToken ? null : (res.data.newStartPageToken ?? null),
      resyncRequired: false,
    };
  }

  /** The folder path of a file below the scope root, or null when the file is outside the scope. */
  private async pathInScope(
    c: GoogleDriveCredentials,
    f: DriveFile,
    folders: Map<string, { name: string; parents: string[] } | null>,
  ): Promise<string | null> {
    const root = rootOf(c);
    if (!c.folderId) return c.driveId && f.driveId === c.driveId ? '' : null;
    const names: string[] = [];
    let parent = f.parents?.[0];
    for (let depth = 0; parent && depth < 64; depth++) {
      if (parent === root) return names.reverse().join('/');
      if (!folders.has(parent)) {
        try {
          const res = await this.call(c, `Google Drive folder "${parent}"`, (o) =>
            this.api.files.get({ fileId: parent, fields: 'id,name,parents', supportsAllDrives: true }, o),
          );
          folders.set(parent, { name: res.data.name ?? parent, parents: res.data.parents ?? [] });
        } catch (err) {
          if (err instanceof SourceError && err.kind !== 'UNAVAILABLE') folders.set(parent, null);
          else throw err;
        }
      }
      const p = folders.get(parent);
      if (!p) return null;
      names.push(p.name);
      parent = p.parents[0];
    }
    return null;
  }

  private toObject(c: GoogleDriveCredentials, f: DriveFile, folderPath: string): ListedObject | null {
    if (!f.id || !f.name || !f.mimeType) return null;
    const exportAs = GOOGLE_EXPORTS[f.mimeType];
    if (!exportAs && f.mimeType.startsWith('application/vnd.google-apps.')) return null; // forms, shortcuts, ...
    const fileName =
      exportAs && !f.name.toLowerCase().endsWith(`.${exportAs.ext}`) ? `${f.name}.${exportAs.ext}` : f.name;
    return {
      sourceId: googleDriveSourceId(rootOf(c), f.id),
      path: folderPath ? `${folderPath}/${fileName}` : fileName,
      fileName,
      etag: f.md5Checksum ?? (f.version ? `v${f.version}` : null),
      sizeBytes: Number(f.size ?? 0),
      lastModified: f.modifiedTime ?? null,
      metadata: {
        itemId: f.id,
        ...(f.webViewLink ? { webUrl: f.webViewLink } : {}),
        ...(c.driveId ? { driveId: c.driveId } : {}),
        folderPath,
        mimeType: f.mimeType,
        ...(exportAs ? { exportedAs: exportAs.mimeType } : {}),
      },
    };
  }

  /**
   * One Drive API call with the service-account token, our time limit, and in-place retries of
   * throttling and transient errors that wait `Retry-After` (or back off exponentially).
   */
  private async call<T>(
    c: GoogleDriveCredentials,
    subject: string,
    fn: (options: { headers: Record<string, string>; retry: false; timeout: number }) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.tokens.token(c);
      try {
        return await fn({
          headers: { Authorization: `Bearer ${token}` },
          retry: false,
          timeout: this.timeoutMs,
        });
      } catch (err) {
        if (transient(err) && attempt < RETRIES) {
          const wait = retryAfterMs(err) ?? Math.min(1000 * 2 ** attempt, 30_000);
          if (wait <= MAX_RETRY_AFTER_MS) {
            await new Promise((r) => setTimeout(r, wait));
            continue;
          }
        }
        throw toDriveSourceError(err, subject);
      }
    }
  }
}
