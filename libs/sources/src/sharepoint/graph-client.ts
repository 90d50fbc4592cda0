import {
  Client,
  Context,
  GraphError,
  Middleware,
  RedirectHandler,
  RedirectHandlerOptions,
  RetryHandler,
  RetryHandlerOptions,
} from '@microsoft/microsoft-graph-client';
import type { SourceFetch } from '../http/source-fetch';
import { SourceError } from '../source.port';

export interface GraphClientOptions {
  /** GRAPH_BASE_URL, e.g. https://graph.microsoft.com/v1.0 (the last segment is the version). */
  graphBaseUrl: string;
  token: () => Promise<string>;
  /** Per-attempt time limit of one request (a download sets its own idle limit). */
  requestTimeoutMs: number;
  /** Retries of 429/503/504 inside one call, waiting Retry-After (or backoff) between them. */
  maxRetries: number;
  fetch: SourceFetch;
}

/** The SDK's HTTPMessageHandler, on our fetch (extra CAs from SOURCE_CA_FILE). */
class FetchHandler implements Middleware {
  constructor(private readonly fetchFn: SourceFetch) {}

  async execute(ctx: Context): Promise<void> {
    ctx.response = await this.fetchFn(ctx.request, ctx.options as RequestInit);
  }
}

/**
 * Attaches the app-only token to requests for the configured Graph origin only (the SDK's own
 * AuthenticationHandler recognises https Graph hosts by name, so a sovereign cloud or a local
 * stand-in on another host would get no token), and bounds every attempt with a time limit so a
 * source that stops answering fails the call instead of hanging it.
 */
class GraphAuthMiddleware implements Middleware {
  private next?: Middleware;

  constructor(
    private readonly origin: string,
    private readonly token: () => Promise<string>,
    private readonly timeoutMs: number,
  ) {}

  async execute(ctx: Context): Promise<void> {
    const url = typeof ctx.request === 'string' ? ctx.request : ctx.request.url;
    const opts = (ctx.options ??= {});
    if (new URL(url).origin === this.origin) {
      const auth = `Bearer ${await this.token()}`;
      if (opts.headers instanceof Headers) opts.headers.set('Authorization', auth);
      else
        opts.headers = {
          ...((opts.headers as Record<string, string> | undefined) ?? {}),
          Authorization: auth,
        };
    }
    const own = !opts.signal;
    const signal = own ? AbortSignal.timeout(this.timeoutMs) : undefined;
    if (signal) opts.signal = signal;
    try {
      await this.next!.execute(ctx);
    } catch (err) {
      // Fetch's abort reason may be a DOMException from another realm; hand the SDK a plain Error.
      if (signal?.aborted) throw Object.assign(new Error('request timed out'), { name: 'TimeoutError' });
      throw err;
    } finally {
      // The next attempt (RetryHandler) gets a fresh time limit.
      if (own) delete opts.signal;
    }
  }

  setNext(next: Middleware): void {
    this.next = next;
  }
}

/** `https://graph.microsoft.com/v1.0` -> { baseUrl: 'https://graph.microsoft.com', version: 'v1.0' }. */
export function splitGraphBase(graphBaseUrl: string): { baseUrl: string; version: string; full: string } {
  const full = graphBaseUrl.replace(/\/+$/, '');
  const cut = full.lastIndexOf('/');
  const u = new URL(full);
  if (u.pathname === '/' || cut < u.origin.length) return { baseUrl: u.origin, version: '', full };
  return { baseUrl: full.slice(0, cut), version: full.slice(cut + 1), full };
}

/**
 * A Microsoft Graph client (@microsoft/microsoft-graph-client) with the SDK's RetryHandler
 * (honours Retry-After on 429/503/504) and RedirectHandler (follows the 302 of `/content` to the
 * pre-authenticated download URL, dropping the token across hosts), and our auth middleware.
 */
export function createGraphClient(o: GraphClientOptions): Client {
  const { baseUrl, version } = splitGraphBase(o.graphBaseUrl);
  return Client.initWithMiddleware({
    baseUrl,
    defaultVersion: version,
    middleware: [
      new RetryHandler(new RetryHandlerOptions(1, o.maxRetries)),
      new GraphAuthMiddleware(new URL(baseUrl).origin, o.token, o.requestTimeoutMs),
      new RedirectHandler(new RedirectHandlerOptions()),
      new FetchHandler(o.fetch),
    ],
  });
}

/**
 * A next/delta link from a Graph response as a path the client resolves against the configured
 * base; a link to any other host is refused (the token must never go elsewhere).
 */
export function relativeGraphLink(graphBaseUrl: string, link: string): string {
  const { full } = splitGraphBase(graphBaseUrl);
  if (!link.startsWith(full + '/'))
    throw new SourceError(
      'UNAVAILABLE',
      'Microsoft Graph returned a paging link outside the configured Graph URL',
    );
  return link.slice(full.length);
}

export function graphStatus(err: unknown): number | undefined {
  if (err instanceof GraphError) return err.statusCode;
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** Maps a Graph failure to a SourceError naming what was asked for, never a token or secret. */
export function toGraphSourceError(err: unknown, subject: string): SourceError {
  if (err instanceof SourceError) return err;
  const status = graphStatus(err);
  const code = err instanceof GraphError && err.code ? err.code : undefined;
  const why = code ? ` (${code})` : status && status > 0 ? ` (HTTP ${status})` : '';
  if (status === 401 || status === 403)
    return new SourceError('ACCESS_DENIED', `${subject}: access denied${why}`);
  if (status === 404 || status === 400) return new SourceError('NOT_FOUND', `${subject}: not found${why}`);
  if (status === 429) return new SourceError('UNAVAILABLE', `${subject}: throttled by Microsoft Graph${why}`);
  if (status && status >= 500)
    return new SourceError('UNAVAILABLE', `${subject}: Microsoft Graph failed${why}`);
  const name = code ?? (err as { name?: string })?.name;
  if (name === 'TimeoutError' || name === 'AbortError')
    return new SourceError('UNAVAILABLE', `${subject}: Microsoft Graph did not answer in time`);
  return new SourceError('UNAVAILABLE', `${subject}: Microsoft Graph is unreachable${why}`);
}
