import type { TelemetryOptions } from '@temporalio/worker';
import * as net from 'node:net';
import { AppConfig, registerMetricsSource } from '@docqa/common';

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Telemetry options for `Runtime.install`: the Temporal SDK (Core) exports its worker metrics
 * (task slots, poll and schedule-to-start latencies, sticky cache, activity/workflow task counts,
 * all prefixed `temporal_`) with its own Prometheus exporter on a loopback port, and the process's
 * metrics endpoint (METRICS_PORT) appends that text to every scrape: one target per process.
 */
export async function temporalTelemetryOptions(cfg: AppConfig): Promise<TelemetryOptions | undefined> {
  if (!cfg.metrics.enabled) return undefined;
  const port = await freeLoopbackPort();
  registerMetricsSource('temporal-sdk', `http://127.0.0.1:${port}/metrics`);
  return {
    metrics: {
      prometheus: {
        bindAddress: `127.0.0.1:${port}`,
        countersTotalSuffix: true,
        unitSuffix: true,
        useSecondsForDurations: true,
      },
    },
  };
}
