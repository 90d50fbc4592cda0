import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import pino, { DestinationStream, LoggerOptions } from 'pino';

/** Field names whose values never reach a log line, at any depth pino can address. */
export const SECRET_KEYS = [
  'password',
  'password_confirmation',
  'current_password',
  'otp_attempt',
  'token',
  'accessToken',
  'refreshToken',
  'apiKey',
  'api_key',
  'secret',
  'secretAccessKey',
  'sessionToken',
  'clientSecret',
  'privateKey',
  'private_key',
  'credentials',
  'authorization',
  'cookie',
  'appSecret',
];

export function redactPaths(): string[] {
  const paths = ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'];
  for (const k of SECRET_KEYS) {
    const key = /^[A-Za-z_]\w*$/.test(k) ? k : `["${k}"]`;
    paths.push(key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`);
  }
  return paths;
}

export function pinoOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: redactPaths(), censor: '[REDACTED]' },
    base: { service: 'docqa' },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
  };
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Standard output, or LOG_FILE when set (appending, created if missing). */
export function logDestination(file?: string): DestinationStream {
  return file ? pino.destination({ dest: file, append: true, mkdir: true, sync: true }) : pino.destination(1);
}

/** nestjs-pino parameters: JSON logs, request ids, no query strings (they may carry tokens). */
export function httpLoggerParams(level: string, file?: string): Params {
  return {
    pinoHttp: [
      {
        ...pinoOptions(level),
        genReqId: (req: IncomingMessage, res: ServerResponse) => {
          const given = req.headers['x-request-id'];
          const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
          res.setHeader('X-Request-Id', id);
          return id;
        },
        serializers: {
          req: (req: { id: string; method: string; url: string }) => ({
            id: req.id,
            method: req.method,
            path: String(req.url).split('?')[0],
          }),
          res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
          // Type and message only: no stack traces in log lines.
          err: (err: { type?: string; name?: string; message?: string }) => ({
            type: err?.type ?? err?.name,
            message: err?.message,
          }),
        },
        customLogLevel: (_req, res, err) =>
          err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
        autoLogging: { ignore: (req) => String(req.url).endsWith('/health') },
      },
      logDestination(file),
    ],
  };
}
