import type { NextFunction, Request, Response } from 'express';
import { DocqaMetrics } from '@docqa/common';

/** Label for requests no route matched (404s, refused bodies): raw paths would explode cardinality. */
export const UNMATCHED_ROUTE = 'unmatched';

const CATCH_ALL = /^\/?(\*|\{\*\w*\}|\(\.\*\))$/;

/** The matched route's template, e.g. `/api/v1/document_proxy/index/progress/:docSetName`. */
export function routeTemplate(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (!route || typeof route.path !== 'string') return UNMATCHED_ROUTE;
  // Nest answers unknown paths from a catch-all route (`/{*path}`): not a template worth a series.
  if (CATCH_ALL.test(route.path)) return UNMATCHED_ROUTE;
  return `${req.baseUrl ?? ''}${route.path}` || UNMATCHED_ROUTE;
}

/**
 * Express middleware, installed first: observes `docqa_http_request_duration_seconds` when the
 * response finishes (or the client goes away), labelled with the route template and status.
 */
export function httpMetricsMiddleware(metrics: DocqaMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = process.hrtime.bigint();
    let done = false;
    const observe = () => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics.httpRequestDuration.observe(
        { method: req.method, route: routeTemplate(req), status: String(res.statusCode) },
        seconds,
      );
    };
    res.once('finish', observe);
    res.once('close', observe);
    next();
  };
}
