import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Client, ResponseType } from '@microsoft/microsoft-graph-client';
import { SOURCES_CONFIG, SourcesConfig } from '@docqa/common';
import type { SourceType } from '@docqa/db';
import { decodeListCursor, encodeListCursor } from '../http/list-cursor';
import { createSourceFetch, SourceFetch } from '../http/source-fetch';
import { ChangesPage, IncrementalSourceConnector, ListedObject } from '../incremental-source';
import { DownloadedFile, SourceError, SourcePage } from '../source.port';
import { createGraphClient, graphStatus, relativeGraphLink, toGraphSourceError } from './graph-client';
import { DEFAULT_AUTHORITY_HOST, DEFAULT_GRAPH_BASE_URL, GraphTokenProvider } from './graph-token-provider';
import { parseSharePointCredentials, SharePointCredentials } from './sharepoint-credentials';
import { SOURCE_REQUEST_TIMEOUT_MS } from '../source-deadlines';

/** Fields of a driveItem this connector reads (Graph returns only what is selected). */
const ITEM_FIELDS = 'id,name,size,eTag,cTag,lastModifiedDateTime,webUrl,file,folder,parentReference,deleted';
const GRAPH_RETRIES = 5;

export interface DriveItem {
  id: string;
  name?: string;
  size?: number;
  eTag?: string;
  cTag?: string;
  lastModifiedDateTime?: string;
  webUrl?: string;
  file?: { mimeType?: string };
  folder?: { childCount?: number };
  deleted?: { state?: string };
  parentReference?: { driveId?: string; id?: string; path?: string };
}

interface GraphCollection {
  value?: DriveItem[];
  '@odata.nextLink'?: string;
  '@odata.deltaLink'?: string;
}

/** Listing position: folders still to list (id + path) and the next page of the current one. */
interface ListCursor {
  /** Pending folders: [itemId, path]. */
  q: Array<[string, string]>;
  /** Current folder and the relative next link of its children, if any. */
  c?: [string, string];
  n?: string;
}

export function sharePointSourceId(driveId: string, path: string): string {
  return `sharepoint://${driveId}/${path}`;
}

/** `sharepoint://{driveId}/{path}` -> parts (the only form this connector hands out). */
export function parseSharePointSourceId(sourceId: string): { driveId: string; path: string } {
  const m = /^sharepoint:\/\/([^/]+)\/(.+)$/s.exec(sourceId);
  if (!m) throw new SourceError('NOT_FOUND', 'Not a SharePoint source id');
  return { driveId: m[1], path: m[2] };
}

/** `Shared/Reports` + `a.pdf` -> `Shared/Reports/a.pdf`. */
function joinPath(folder: string, name: string): string {
  return folder ? `${folder}/${name}` : name;
}

/** Graph path addressing: each segment percent-encoded, `root:/a/b:` form. */
function itemByPath(driveId: string, path: string, suffix = ''): string {
  const drive = `/drives/${encodeURIComponent(driveId)}`;
  if (!path) return `${drive}/root${suffix ? '/' + suffix : ''}`;
  const enc = path.split('/').map(encodeURIComponent).join('/');
  return `${drive}/root:/${enc}${suffix ? ':/' + suffix : ''}`;
}

/** `parentReference.path` (`/drives/{id}/root:/A/B`, `/drive/root:`) -> `A/B`, or null when absent. */
export function pathFromParentReference(p: string | undefined): string | null {
  if (!p) return null;
  const i = p.indexOf('root:');
  if (i < 0) return null;
  return decodeURIComponent(p.slice(i + 5).replace(/^\/+/, ''));
}

function insideFolder(folderPath: string, path: string): boolean {
  return folderPath === '' || path.startsWith(folderPath + '/');
}

/**
 * SharePoint document libraries through Microsoft Graph: client-credentials sign-in with MSAL,
 * scope = site + drive + folder. Full listings walk the folder tree with `@odata.nextLink` paging;
 * re-syncs read the drive's delta feed (delta is only supported on the drive root in SharePoint,
 * so items are filtered to the folder here). `sourceId` is path-based, so a scope is a prefix.
 */
@Injectable()
export class SharePointConnector implements IncrementalSourceConnector<SharePointCredentials> {
  readonly sourceType: SourceType = 'SHAREPOINT';
  private readonly graphBaseUrl: string;
  private readonly tokens: GraphTokenProvider;
  private readonly clients = new Map<string, Client>();
  private readonly fetchFn: SourceFetch;
  /** Per request; for a download, the longest wait for the next byte (large files take longer). */
  private readonly timeoutMs: number;

  constructor(@Inject(SOURCES_CONFIG) sources: SourcesConfig) {
    this.timeoutMs = sources.requestTimeoutMs ?? SOURCE_REQUEST_TIMEOUT_MS;
    this.graphBaseUrl = (sources.graphBaseUrl ?? DEFAULT_GRAPH_BASE_URL).replace(/\/+$/, '');
    this.fetchFn = createSourceFetch(sources.caFile);
    this.tokens = new GraphTokenProvider(
      sources.msAuthorityHost ?? DEFAULT_AUTHORITY_HOST,
      `${new URL(this.graphBaseUrl).origin}/.default`,
      this.fetchFn,
    );
  }

  parseCredentials(raw: unknown): SharePointCredentials {
    return parseSharePointCredentials(raw);
  }

  scopeOf(c: SharePointCredentials): string {
    return sharePointSourceId(c.driveId, c.folderPath ? c.folderPath + '/' : '');
  }

  /** Sign-in, then the site's drive, then the folder: the first failure names what is wrong. */
  async check(c: SharePointCredentials): Promise<void> {
    await this.tokens.token(c);
    const client = this.client(c);
    await this.call(`SharePoint site "${c.siteId}" or its drive "${c.driveId}"`, () =>
      client
        .api(`/sites/${encodeURIComponent(c.siteId)}/drives/${encodeURIComponent(c.driveId)}`)
        .select('id')
        .get(),
    );
    await this.folder(c);
  }

  async listPage(c: SharePointCredentials, pageToken: string | null, pageSize: number): Promise<SourcePage> {
    let cur: ListCursor;
    if (pageToken === null) {
      const root = await this.folder(c);
      cur = { q: [], c: [root.id, c.folderPath] };
    } else {
      cur = decodeListCursor<ListCursor>(pageToken);
    }
    if (!cur.c) {
      const next = cur.q.shift();
      if (!next) return { objects: [], nextPageToken: null };
      cur.c = next;
      cur.n = undefined;
    }
    const [folderId, folderPath] = cur.c;
    const top = Math.min(Math.max(pageSize, 1), 999);
    const url =
      cur.n ??
      `/drives/${encodeURIComponent(c.driveId)}/items/${encodeURIComponent(folderId)}/children?$top=${top}&$select=${ITEM_FIELDS}`;
    const page = await this.call<GraphCollection>(`SharePoint folder "/${folderPath}"`, () =>
      this.client(c).api(url).get(),
    );
    const objects: ListedObject[] = [];
    for (const item of page.value ?? []) {
      if (item.folder) cur.q.push([item.id, joinPath(folderPath, item.name ?? item.id)]);
      else if (item.file && item.name) objects.push(this.toObject(c, item, joinPath(folderPath, item.name)));
    }
    const nextLink = page['@odata.nextLink'];
    if (nextLink) cur.n = relativeGraphLink(this.graphBaseUrl, nextLink);
    else {
      cur.c = undefined;
      cur.n = undefined;
    }
    const done = !cur.c && cur.q.length === 0;
    return {
      objects,
      nextPageToken: done ? null : encodeListCursor(cur),
    };
  }

  async download(c: SharePointCredentials, sourceId: string, maxBytes: number): Promise<DownloadedFile> {
    const { driveId, path } = parseSharePointSourceId(sourceId);
    if (driveId !== c.driveId || !insideFolder(c.folderPath, path))
      throw new SourceError('ACCESS_DENIED', 'The file is outside the SharePoint source folder');
    const subject = `SharePoint file "/${path}"`;
    const idle = new AbortController();
    let timer = setTimeout(() => idle.abort(), this.timeoutMs);
    const touch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), this.timeoutMs);
    };
    try {
      const res = await this.call<Response>(subject, () =>
        this.client(c)
          .api(itemByPath(driveId, path, 'content'))
          .option('signal', idle.signal)
          .responseType(ResponseType.RAW)
          .get(),
      );
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        throw toGraphSourceError({ statusCode: res.status }, subject);
      }
      const declared = Number(res.headers.get('content-length') ?? '0');
      if (declared > maxBytes) {
        await res.body?.cancel().catch(() => undefined);
        throw new SourceError('TOO_LARGE', `The file is larger than the ${maxBytes}-byte limit`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const reader = res.body!.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          touch();
          size += value.length;
          if (size > maxBytes) {
            await reader.cancel().catch(() => undefined);
            throw new SourceError('TOO_LARGE', `The file is larger than the ${maxBytes}-byte limit`);
          }
          chunks.push(Buffer.from(value));
        }
      } catch (err) {
        if (err instanceof SourceError) throw err;
        throw new SourceError('UNAVAILABLE', `${subject}: the download was interrupted`);
      }
      const etag = res.headers.get('etag');
      return { data: Buffer.concat(chunks, size), etag: etag ? etag.replace(/"/g, '') : null };
    } finally {
      clearTimeout(timer);
    }
  }

  async latestCursor(c: SharePointCredentials): Promise<string> {
    const res = await this.call<GraphCollection>(`SharePoint drive "${c.driveId}" change feed`, () =>
      this.client(c)
        .api(`/drives/${encodeURIComponent(c.driveId)}/root/delta?token=latest`)
        .get(),
    );
    const link = res['@odata.deltaLink'];
    if (!link) throw new SourceError('UNAVAILABLE', 'Microsoft Graph returned no delta link');
    return relativeGraphLink(this.graphBaseUrl, link);
  }

  async changesPage(
    c: SharePointCredentials,
    cursor: string,
    pageToken: string | null,
  ): Promise<ChangesPage> {
    const url = pageToken ?? cursor;
    if (!url.startsWith(`/drives/${encodeURIComponent(c.driveId)}/`))
      throw new SourceError('NOT_FOUND', 'The stored SharePoint delta cursor belongs to another drive');
    const subject = `SharePoint drive "${c.driveId}" change feed`;
    let page: GraphCollection;
    try {
      page = await this.client(c).api(url).get();
    } catch (err) {
      // 410 Gone: the delta token expired (resyncRequired); start over with a full listing.
      if (graphStatus(err) === 410)
        return {
          upserted: [],
          removedItemIds: [],
          nextPageToken: null,
          nextCursor: null,
          resyncRequired: true,
        };
      throw toGraphSourceError(err, subject);
    }
    const upserted: ListedObject[] = [];
    const removedItemIds: string[] = [];
    for (const item of page.value ?? []) {
      if (item.deleted) {
        removedItemIds.push(item.id);
        continue;
      }
      if (!item.file) continue;
      // SharePoint delta omits parentReference.path; ask for the item's current location.
      let parentPath = pathFromParentReference(item.parentReference?.path);
      let full = item;
      if (parentPath === null) {
        try {
          full = await this.client(c)
            .api(`/drives/${encodeURIComponent(c.driveId)}/items/${encodeURIComponent(item.id)}`)
            .select(ITEM_FIELDS)
            .get();
        } catch (err) {
          if (graphStatus(err) === 404) {
            removedItemIds.push(item.id);
            continue;
          }
          throw toGraphSourceError(err, `SharePoint item "${item.id}"`);
        }
        parentPath = pathFromParentReference(full.parentReference?.path) ?? '';
      }
      const path = joinPath(parentPath, full.name ?? item.id);
      if (insideFolder(c.folderPath, path)) upserted.push(this.toObject(c, full, path));
      else removedItemIds.push(item.id);
    }
    const next = page['@odata.nextLink'];
    const delta = page['@odata.deltaLink'];
    return {
      upserted,
      removedItemIds,
      nextPageToken: next ? relativeGraphLink(this.graphBaseUrl, next) : null,
      nextCursor: !next && delta ? relativeGraphLink(this.graphBaseUrl, delta) : null,
      resyncRequired: false,
    };
  }

  private toObject(c: SharePointCredentials, item: DriveItem, path: string): ListedObject {
    return {
      sourceId: sharePointSourceId(c.driveId, path),
      path,
      fileName: item.name ?? item.id,
      // cTag changes with the content only; eTag also with metadata (renames).
      etag: (item.cTag ?? item.eTag ?? null)?.replace(/"/g, '') ?? null,
      sizeBytes: Number(item.size ?? 0),
      lastModified: item.lastModifiedDateTime ?? null,
      metadata: {
        itemId: item.id,
        siteId: c.siteId,
        driveId: c.driveId,
        folderPath: path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '',
        ...(item.webUrl ? { webUrl: item.webUrl } : {}),
        ...(item.file?.mimeType ? { mimeType: item.file.mimeType } : {}),
      },
    };
  }

  /** The scope folder (drive root when folderPath is empty); 404 and non-folders name the path. */
  private async folder(c: SharePointCredentials): Promise<DriveItem> {
    const subject = `SharePoint folder "/${c.folderPath}" in drive "${c.driveId}"`;
    const item = await this.call<DriveItem>(subject, () =>
      this.client(c).api(itemByPath(c.driveId, c.folderPath)).select('id,name,folder').get(),
    );
    if (!item.folder) throw new SourceError('NOT_FOUND', `${subject}: not a folder`);
    return item;
  }

  private client(c: SharePointCredentials): Client {
    const key = createHash('sha256')
      .update(JSON.stringify([c.tenantId, c.clientId, c.clientSecret, c.certificate]))
      .digest('hex');
    let client = this.clients.get(key);
    if (!client) {
      client = createGraphClient({
        graphBaseUrl: this.graphBaseUrl,
        token: () => this.tokens.token(c),
        requestTimeoutMs: this.timeoutMs,
        maxRetries: GRAPH_RETRIES,
        fetch: this.fetchFn,
      });
      if (this.clients.size >= 64) this.clients.delete(this.clients.keys().next().value as string);
      this.clients.set(key, client);
    }
    return client;
  }

  private async call<T>(subject: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toGraphSourceError(err, subject);
    }
  }
}
