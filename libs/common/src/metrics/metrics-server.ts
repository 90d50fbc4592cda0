import * as http from 'node:http';
import { DocqaMetrics, metricsSources } from './metrics';

export interface MetricsServer {
  port: number;
  /** The address it is bound to. */
  host: string;
  close(): Promise<void>;
}

/** The operator's health view: status code and the full report (engine names, probe details). */
export type HealthReporter = () => Promise<{ status: number; body: unknown }>;

const SOURCE_TIMEOUT_MS = 2000;

async function fetchSource(name: string, url: string): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(SOURCE_TIMEOUT_MS) });
    if (!res.ok) return `# source ${name} answered ${res.status}\n`;
    const text = await res.text();
    return text.endsWith('\n') ? text : text + '\n';
  } catch {
    return `# source ${name} unreachable\n`;
  }
}

/** Prometheus text of this process: its own registry, then every registered external source. */
export async function renderMetrics(metrics: DocqaMetrics): Promise<string> {
  const own = await metrics.registry.metrics();
  const external = await Promise.all([...metricsSources()].map(([name, url]) => fetchSource(name, url)));
  return [own.endsWith('\n') ? own : own + '\n', ...external].join('');
}

/**
 * Plain-HTTP listener for Prometheus, separate from the HTTPS API so it can stay on the internal
 * network: `GET /metrics`, `GET /health/live` (process up; used by the worker's health check) and,
 * in the api, `GET /health`: the operator's health view with the details the public
 * `/api/v1/document_proxy/health` leaves out (engine, index, probe failures, indexing backlog).
 */
export function startMetricsServer(o: {
  host: string;
  port: number;
  metrics: DocqaMetrics;
  health?: () => HealthReporter | undefined;
}): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    if (url === '/metrics') {
      renderMetrics(o.metrics).then(
        (body) => {
          res.writeHead(200, { 'Content-Type': o.metrics.registry.contentType });
          res.end(req.method === 'HEAD' ? undefined : body);
        },
        () => res.writeHead(500).end(),
      );
      return;
    }
    if (url === '/health/live') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    const health = url === '/health' ? o.health?.() : undefined;
    if (health) {
      health().then(
        (r) => res.writeHead(r.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(r.body)),
        () => res.writeHead(500).end(),
      );
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: try /metrics\n');
  });
  server.keepAliveTimeout = 65000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      const addr = server.address();
      resolve({
        port: typeof addr === 'object' && addr ? addr.port : o.port,
        host: typeof addr === 'object' && addr ? addr.address : o.host,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    });
  });
}
