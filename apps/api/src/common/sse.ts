import { Logger } from '@nestjs/common';
import { Connection, createSession } from 'better-sse';
import type { Request, Response } from 'express';
import { toDomainError } from '@docqa/common';

/**
 * better-sse connection over an Express response whose request body was already read. Node emits
 * `close` on a fully read IncomingMessage long before the client goes away, so (unlike better-sse's
 * NodeHttp1Connection) only the response's `close` counts as a disconnect.
 */
class ExpressResponseConnection extends Connection {
  readonly url: URL;
  readonly request: globalThis.Request;
  readonly response: globalThis.Response;
  private readonly controller = new AbortController();

  constructor(
    private readonly req: Request,
    private readonly res: Response,
  ) {
    super();
    req.socket?.setNoDelay?.(true);
    this.url = new URL(req.originalUrl ?? req.url ?? '/', `https://${req.headers.host ?? 'localhost'}`);
    this.request = new globalThis.Request(this.url, { method: 'GET', signal: this.controller.signal });
    Connection.applyHeaders(
      req.headers as Record<string, string | string[] | undefined>,
      this.request.headers,
    );
    this.response = new globalThis.Response(null, {
      status: 200,
      headers: Connection.constants.RESPONSE_HEADERS,
    });
    Connection.applyHeaders(
      res.getHeaders() as Record<string, string | string[] | undefined>,
      this.response.headers,
    );
    res.once('close', this.onClose);
  }

  private onClose = () => this.controller.abort();

  sendHead = () => {
    this.res.writeHead(this.response.status, Object.fromEntries(this.response.headers));
    this.res.flushHeaders();
  };

  sendChunk = (chunk: string) => {
    if (!this.res.writableEnded) this.res.write(chunk);
  };

  cleanup = () => {
    this.res.removeListener('close', this.onClose);
  };
}

export interface SseEvent {
  type: string;
}

const log = new Logger('AskStream');

/**
 * Streams events as Server-Sent Events: `event: <type>`, `id: <n>`, `data: <JSON>`. Keep-alive
 * comments are written every `keepAliveMs` while the pipeline works. A client that disconnects
 * aborts `abort` (which stops retrieval and generation); a failure after the stream started
 * becomes a final `error` event; the response always ends.
 */
export async function streamEvents(
  req: Request,
  res: Response,
  events: AsyncIterable<SseEvent>,
  abort: AbortController,
  keepAliveMs: number,
): Promise<void> {
  const session = await createSession(new ExpressResponseConnection(req, res), {
    keepAlive: keepAliveMs,
    retry: null,
    trustClientEventId: false,
  });
  const onDisconnect = () => abort.abort(new DOMException('The client disconnected', 'AbortError'));
  session.once('disconnected', onDisconnect);
  let id = 0;
  try {
    for await (const e of events) {
      if (!session.isConnected) break;
      session.push(e, e.type, String(++id));
    }
  } catch (err) {
    if (!abort.signal.aborted) {
      const { error, errorId } = toDomainError(err);
      // Code, error id and error name only: no message, which might carry SQL or provider text.
      log.warn(
        `answer stream failed: ${error.code}${errorId ? ` (errorId ${errorId}, ${(err as Error)?.name})` : ''}`,
      );
      if (session.isConnected) {
        session.push(
          { type: 'error', errorCode: error.code, message: error.message, ...(errorId ? { errorId } : {}) },
          'error',
          String(++id),
        );
      }
    }
  } finally {
    session.off('disconnected', onDisconnect);
    if (!res.writableEnded) res.end();
  }
}

/** The abort controller of one request: aborted when the client goes away before the response ends. */
export function abortOnClose(res: Response): AbortController {
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort(new DOMException('The client disconnected', 'AbortError'));
  });
  return abort;
}

/** Interval of keep-alive comments on a streamed answer (docs/ask.md, docs/chatbot.md). */
export const SSE_KEEPALIVE_MS = 10_000;

/**
 * Answers one question request as JSON or, when `stream`, as Server-Sent Events (see
 * streamEvents). The checks before the first event (403, 503) still answer with the surface's JSON
 * error body; once the client has gone away nothing is answered.
 */
export async function answerOrStream<E extends SseEvent>(
  req: Request,
  res: Response,
  options: {
    stream: boolean;
    /** Unset: SSE_KEEPALIVE_MS. */
    keepAliveMs?: number;
    answer: (signal: AbortSignal) => Promise<unknown>;
    events: (signal: AbortSignal) => Promise<AsyncIterable<E>>;
  },
): Promise<void> {
  const abort = abortOnClose(res);
  try {
    if (!options.stream) {
      const result = await options.answer(abort.signal);
      if (!res.writableEnded && !res.destroyed) res.status(200).json(result);
      return;
    }
    const events = await options.events(abort.signal);
    await streamEvents(req, res, events, abort, options.keepAliveMs ?? SSE_KEEPALIVE_MS);
  } catch (err) {
    if (abort.signal.aborted) return; // the client went away: nobody to answer
    throw err;
  }
}
