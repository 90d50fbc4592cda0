import * as http from 'node:http';
import { DomainError, ErrorCode, renderError, surfaceOf } from '@docqa/common';

/**
 * The plain-HTTP listener. It never runs a handler: every request gets 403 HTTPS_REQUIRED in its
 * surface's error body, unless TRUST_PROXY is set and a TLS-terminating proxy says the client
 * spoke HTTPS (X-Forwarded-Proto: https), in which case the request goes to the app.
 */
export function createPlainHttpServer(trustProxy: boolean, app: http.RequestListener): http.Server {
  return http.createServer((req, res) => {
    const proto = String(req.headers['x-forwarded-proto'] ?? '')
      .split(',')[0]
      .trim()
      .toLowerCase();
    if (trustProxy && proto === 'https') {
      app(req, res);
      return;
    }
    const err = new DomainError(
      ErrorCode.HTTPS_REQUIRED,
      'HTTPS is required; plain HTTP requests are refused',
    );
    const body = JSON.stringify(renderError(err, surfaceOf(req.url ?? '/')));
    // Drain nothing and close: the request body is never read or processed.
    res.writeHead(403, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    res.end(body);
  });
}
