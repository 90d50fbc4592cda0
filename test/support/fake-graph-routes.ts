import { randomUUID } from 'node:crypto';
import type { FakeDrive, Item } from './fake-graph-drive';

/** An HTTP answer of the fake: a JSON body, raw bytes (a Buffer), or none. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export const graphError = (status: number, code: string, message: string): Reply => ({
  status,
  body: { error: { code, message, innerError: { 'request-id': randomUUID() } } },
});

/** What a drive request is answered with besides the drive: the server's URL and its settings. */
export interface DriveRouteContext {
  /** GRAPH_BASE_URL (…/v1.0), the base of every link the answers carry. */
  base: string;
  /** Server-side page size of children/delta. */
  pageSize: number;
  /** Delta tokens at or below this log position answer 410 resyncRequired. */
  expiredBelow: number;
}

/**
 * Graph's answer to an authorised request below /v1.0 (`rest` is the path after it): the site's
 * drive, items by id and by path (`root:/a/b:`), children with `$top` and `@odata.nextLink`,
 * `/content` (302 to a pre-authenticated download URL) and `root/delta`.
 */
export function driveReply(drive: FakeDrive, url: URL, rest: string, ctx: DriveRouteContext): Reply {
  const driveId = drive.id;
  const m = /^\/drives\/([^/]+)(\/.*)?$/.exec(rest);
  const siteDrive = /^\/sites\/([^/]+)\/drives\/([^/]+)$/.exec(rest);
  if (siteDrive) {
    if (decodeURIComponent(siteDrive[1]) !== drive.siteId)
      return graphError(404, 'itemNotFound', 'Requested site could not be found');
    if (decodeURIComponent(siteDrive[2]) !== driveId)
      return graphError(404, 'itemNotFound', 'The requested drive was not found');
    return { status: 200, body: { id: driveId, name: 'Documents', driveType: 'documentLibrary' } };
  }
  if (!m) return graphError(400, 'invalidRequest', `Unsupported path ${rest}`);
  if (decodeURIComponent(m[1]) !== driveId) return graphError(404, 'itemNotFound', 'Drive not found');
  const sub = m[2] ?? '';
  const q = url.searchParams;
  if (sub === '/root/delta') return deltaReply(drive, q, ctx);
  let item: Item | undefined;
  let tail = '';
  const byPath = /^\/root:(\/[^:]*)?(?::(\/.*)?)?$/.exec(sub);
  const byId = /^\/items\/([^/]+)(\/.*)?$/.exec(sub);
  if (sub === '/root' || sub.startsWith('/root/')) {
    item = drive.root;
    tail = sub.slice('/root'.length);
  } else if (byPath) {
    item = drive.resolve(decodeURIComponent(byPath[1] ?? ''));
    tail = byPath[2] ?? '';
  } else if (byId) {
    item = drive.get(decodeURIComponent(byId[1]));
    tail = byId[2] ?? '';
  }
  if (!item || item.deleted) return graphError(404, 'itemNotFound', 'The resource could not be found.');
  if (tail === '' || tail === '/') return { status: 200, body: itemJson(drive, item) };
  if (tail === '/children') {
    if (!item.folder) return graphError(400, 'invalidRequest', 'Not a folder');
    const top = Math.min(Number(q.get('$top') ?? ctx.pageSize), ctx.pageSize);
    const skip = Number(q.get('$skiptoken') ?? '0');
    const kids = drive.childrenOf(item.id);
    const body: Record<string, unknown> = {
      value: kids.slice(skip, skip + top).map((k) => itemJson(drive, k)),
    };
    if (skip + top < kids.length)
      body['@odata.nextLink'] =
        `${ctx.base}/drives/${driveId}/items/${item.id}/children?$top=${top}&$skiptoken=${skip + top}`;
    return { status: 200, body };
  }
  if (tail === '/content') {
    if (item.folder) return graphError(400, 'invalidRequest', 'Not a file');
    // Another host name (like SharePoint's download host), so the client must drop the token.
    const download = ctx.base.replace('127.0.0.1', 'localhost').replace(/\/v1\.0$/, '');
    return { status: 302, headers: { location: `${download}/download/${item.id}?sig=${randomUUID()}` } };
  }
  return graphError(400, 'invalidRequest', `Unsupported path ${rest}`);
}

/** A pre-authenticated download URL (`/download/{itemId}?sig=…`): no bearer token needed. */
export function downloadReply(drive: FakeDrive, url: URL): Reply {
  const it = drive.get(url.pathname.slice('/download/'.length));
  if (!it || it.deleted || !url.searchParams.get('sig')) return graphError(404, 'itemNotFound', 'gone');
  return {
    status: 200,
    headers: {
      'content-type': 'application/octet-stream',
      'content-length': String(it.content?.length ?? 0),
      etag: `"{${it.id}},${it.version}"`,
    },
    body: it.content ?? Buffer.alloc(0),
  };
}

/**
 * `root/delta` with `token=latest`, `@odata.nextLink`/`@odata.deltaLink`, `deleted` facets and 410
 * for expired tokens. A token is a position in the drive's change log; a page lists the latest
 * state of the items changed after it. Like SharePoint, delta items carry no `parentReference.path`.
 */
function deltaReply(drive: FakeDrive, q: URLSearchParams, ctx: DriveRouteContext): Reply {
  const deltaLink = `${ctx.base}/drives/${drive.id}/root/delta?token=${drive.changeCount}`;
  const token = q.get('token');
  if (token === 'latest') return { status: 200, body: { value: [], '@odata.deltaLink': deltaLink } };
  const from = Number(token ?? '0');
  if (!Number.isInteger(from) || from < 0 || from > drive.changeCount)
    return graphError(400, 'invalidRequest', 'Invalid delta token');
  if (from <= ctx.expiredBelow) return graphError(410, 'resyncRequired', 'Resync required');
  const skip = Number(q.get('$skiptoken') ?? '0');
  const changed = drive.changedSince(from);
  const page = changed.slice(skip, skip + ctx.pageSize);
  const value = page.map((it) =>
    it.deleted
      ? { id: it.id, deleted: { state: 'deleted' }, parentReference: { driveId: drive.id } }
      : itemJson(drive, it, false),
  );
  const body: Record<string, unknown> = { value };
  if (skip + ctx.pageSize < changed.length)
    body['@odata.nextLink'] =
      `${ctx.base}/drives/${drive.id}/root/delta?token=${from}&$skiptoken=${skip + ctx.pageSize}`;
  else body['@odata.deltaLink'] = deltaLink;
  return { status: 200, body };
}

/** Graph's driveItem JSON of an item (`withPath`: with `parentReference.path`). */
function itemJson(drive: FakeDrive, it: Item, withPath = true) {
  const driveId = drive.id;
  const parent = it.parentId ? drive.get(it.parentId)! : undefined;
  const parentPath = parent ? drive.pathOf(parent) : '';
  const out: Record<string, unknown> = {
    id: it.id,
    name: it.name,
    lastModifiedDateTime: it.modified,
    eTag: `"{${it.id}},${it.version}"`,
    cTag: `"c:{${it.id}},${it.version}"`,
    webUrl: `https://contoso.sharepoint.com/sites/docs/Shared%20Documents/${encodeURI(drive.pathOf(it))}`,
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
  if (it.folder) out.folder = { childCount: drive.childCount(it.id) };
  else {
    out.file = { mimeType: it.name.endsWith('.pdf') ? 'application/pdf' : 'text/plain' };
    out.size = it.content?.length ?? 0;
  }
  return out;
}
