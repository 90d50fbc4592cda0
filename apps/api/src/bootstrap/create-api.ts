import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express from 'express';
import { isUtf8 } from 'node:buffer';
import * as http from 'node:http';
import * as https from 'node:https';
import { Logger } from 'nestjs-pino';
import {
  AppConfig,
  createValidationPipe,
  docqaMetrics,
  DomainError,
  MetricsService,
  PublicBaseUrl,
  renderError,
  shutdownTracker,
  surfaceOf,
  WorkDrains,
  toDomainError,
} from '@docqa/common';
import { AppModule } from '../app.module';
import { httpMetricsMiddleware } from '../metrics/http-metrics';
import { containsNul, jsonDepth, MAX_JSON_DEPTH, rejectedField, urlContainsNul } from './json-depth';
import { createPlainHttpServer } from './plain-http';
import { loadTls, TlsMaterial } from './tls';

export interface RunningApi {
  app: INestApplication;
  httpsServer: https.Server;
  httpServer: http.Server;
  httpsPort: number;
  httpPort: number;
  /** Port of the Prometheus endpoint (METRICS_PORT), undefined when METRICS_ENABLED=false. */
  metricsPort?: number;
  tls: TlsMaterial;
  close(): Promise<void>;
}

function listen(server: http.Server | https.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
}

/**
 * JSON text must be UTF-8 (RFC 8259 §8.1): the body parser would decode invalid bytes to U+FFFD
 * and carry on, so the raw bytes are checked first (a 400 MALFORMED_JSON, nothing runs).
 */
function verifyUtf8(
  req: http.IncomingMessage,
  _res: http.ServerResponse,
  buf: Buffer,
  encoding: string,
): void {
  if (encoding.toLowerCase().replace('-', '') === 'utf8' && !isUtf8(buf)) {
    throw Object.assign(new Error('Request body is not valid UTF-8'), {
      type: 'encoding.invalid',
      status: 400,
    });
  }
}

/**
 * Body parsing with errors rendered in the surface's error body: 400 for malformed JSON (invalid
 * UTF-8 included), a body nested too deep, NUL characters, unpaired surrogates and
 * `__proto__`/`constructor` keys; 413 too large.
 */
function installBodyParsers(app: express.Express, limit: number): void {
  const json = express.json({ limit, type: ['application/json', 'application/*+json'], verify: verifyUtf8 });
  app.use((req, res, next) => {
    json(req, res, (err?: unknown) => {
      let error: DomainError | undefined;
      if (err) error = toDomainError(err).error;
      else if (jsonDepth(req.body) > MAX_JSON_DEPTH) {
        error = DomainError.validation('body', `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
      } else if (urlContainsNul(req.originalUrl)) {
        error = DomainError.validation('query', 'NUL characters are not allowed in the URL');
      } else if (containsNul(req.body)) {
        error = DomainError.validation('body', 'NUL characters are not allowed in the request body');
      } else {
        const rejected = rejectedField(req.body);
        if (rejected) error = DomainError.validation(rejected.field, rejected.message);
      }
      if (!error) return next();
      res.status(error.status).json(renderError(error, surfaceOf(req.originalUrl)));
    });
  });
}

export function buildOpenApi(app: INestApplication): void {
  const doc = new DocumentBuilder()
    .setTitle('DocQA API')
    .setDescription(
      'Document API (`/api/v1/document_proxy`, bearer API token, errors `{ message, errorCode }`), ' +
        'Account API and chatbot endpoints (`/api/v1`, errors `{ error, errors?, limit?, reset_at? }`). HTTPS only.',
    )
    .setVersion('v1')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      description: 'API token, or a cb_ chatbot key on the chatbot endpoints',
    })
    .build();
  const document = SwaggerModule.createDocument(app, doc);
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
}

/** Creates the Nest app, listens with HTTPS and with the refusing plain-HTTP listener. */
export async function createApi(
  cfg: AppConfig,
  extra: Array<Type | DynamicModule> = [],
): Promise<RunningApi> {
  const tls = await loadTls(cfg);
  const expressApp = express();
  expressApp.disable('x-powered-by');
  if (cfg.server.trustProxy) expressApp.set('trust proxy', true);
  expressApp.use(httpMetricsMiddleware(docqaMetrics));
  expressApp.use((_req, res, next) => {
    res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  installBodyParsers(expressApp, cfg.server.maxBodyBytes);

  const app = await NestFactory.create(AppModule.register(cfg, extra), new ExpressAdapter(expressApp), {
    bufferLogs: true,
    bodyParser: false,
    httpsOptions: { cert: tls.cert, key: tls.key },
  });
  app.useLogger(app.get(Logger));
  // Nest flushes buffered logs only in app.listen(), which this bootstrap does not use: without this,
  // every Nest Logger line would stay in the in-memory buffer forever (lost, and unbounded memory).
  app.flushLogs();
  app.useGlobalPipes(createValidationPipe());
  buildOpenApi(app);
  await app.init();

  const httpsServer = app.getHttpServer() as https.Server;
  // Idle keep-alive connections stay open longer than a load balancer's idle timeout (60 s on the
  // common ones) and than a busy client's reuse window: with Node's 5 s default, a client reusing a
  // connection the server is just closing gets ECONNRESET on a request that never arrived.
  httpsServer.keepAliveTimeout = 65_000;
  httpsServer.headersTimeout = 66_000;
  const httpsPort = await listen(httpsServer, cfg.server.httpsPort, cfg.server.bindHost);
  // Absolute URLs in responses (avatar_url, citation links) use this, never the request's Host.
  app.get(PublicBaseUrl).listeningOn(httpsPort);
  const httpServer = createPlainHttpServer(cfg.server.trustProxy, expressApp);
  const httpPort = await listen(httpServer, cfg.server.httpPort, cfg.server.bindHost);

  let closed = false;
  return {
    app,
    httpsServer,
    httpServer,
    httpsPort,
    httpPort,
    metricsPort: app.get(MetricsService, { strict: false }).port,
    tls,
    async close() {
      if (closed) return;
      closed = true;
      // Stop accepting, let in-flight requests finish (open streams are cut after a fifth of the
      // shutdown budget), then close modules (worker, search index, DB, Temporal).
      await shutdownTracker.step('http listeners', async () => {
        const stopped = Promise.all([
          new Promise<void>((r) => httpServer.close(() => r())),
          new Promise<void>((r) => httpsServer.close(() => r())),
        ]);
        httpServer.closeIdleConnections();
        httpsServer.closeIdleConnections();
        const force = setTimeout(
          () => {
            httpServer.closeAllConnections();
            httpsServer.closeAllConnections();
          },
          Math.min(10_000, Math.round(cfg.core.shutdownTimeoutMs / 5)),
        );
        await stopped;
        clearTimeout(force);
      });
      // The in-process worker (embedded mode) stops before the modules its activities use.
      await app.get(WorkDrains).drainAll();
      await shutdownTracker.step('application modules', () => app.close());
    },
  };
}
