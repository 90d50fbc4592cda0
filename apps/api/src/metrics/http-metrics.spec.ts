import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { DocqaMetrics } from '@docqa/common';
import { httpMetricsMiddleware, routeTemplate, UNMATCHED_ROUTE } from './http-metrics';

const req = (o: Partial<Request> & { route?: { path: unknown } }) => o as unknown as Request;

describe('routeTemplate', () => {
  it('uses the matched template, never the raw path', () => {
    expect(
      routeTemplate(
        req({
          baseUrl: '',
          originalUrl: '/api/v1/document_proxy/index/progress/hr',
          route: { path: '/api/v1/document_proxy/index/progress/:docSetName' },
        }),
      ),
    ).toBe('/api/v1/document_proxy/index/progress/:docSetName');
    expect(routeTemplate(req({ baseUrl: '/api', route: { path: '/x/:id' } }))).toBe('/api/x/:id');
  });

  it('folds unmatched requests and catch-all routes into one label', () => {
    expect(routeTemplate(req({ originalUrl: '/nope' }))).toBe(UNMATCHED_ROUTE);
    for (const path of ['/{*path}', '*', '/*', '/(.*)', '{*splat}'])
      expect(routeTemplate(req({ baseUrl: '', route: { path } }))).toBe(UNMATCHED_ROUTE);
  });
});

describe('httpMetricsMiddleware', () => {
  it('observes once per request with method, route template and status', async () => {
    const metrics = new DocqaMetrics();
    const res = Object.assign(new EventEmitter(), { statusCode: 201 }) as unknown as Response;
    const r = req({ method: 'POST', baseUrl: '', route: { path: '/api/v1/things/:id' } });
    const next = jest.fn();
    httpMetricsMiddleware(metrics)(r, res, next);
    expect(next).toHaveBeenCalled();
    res.emit('finish');
    res.emit('close');
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'docqa_http_request_duration_seconds_count{method="POST",route="/api/v1/things/:id",status="201"} 1',
    );
  });
});
