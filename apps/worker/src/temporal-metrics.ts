import { Runtime, type RuntimeOptions, type TelemetryOptions } from '@temporalio/worker';
import { IllegalStateError } from '@temporalio/common';
import * as net from 'node:net';
import { AppConfig, registerMetricsSource } from '@docqa/common';

/** Attempts at binding Core's exporter: another process may take the picked port before Core binds it. */
const EXPORTER_BIND_ATTEMPTS = 5;

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

function prometheusOn(port: number): TelemetryOptions {
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

/** Core's bind error (a native error: matched by its message, as it may come from another realm). */
const addressInUse = (err: unknown) =>
  /address already in use/i.test(String((err as Error | undefined)?.message));

/**
 * Installs the Temporal SDK's Core runtime unless one is live; returns whether it installed one.
 *
 * Core exports its worker metrics (task slots, poll and schedule-to-start latencies, sticky cache,
 * activity/workflow task counts, all prefixed `temporal_`) with its own Prometheus exporter on a
 * loopback port, and the process's metrics endpoint (METRICS_PORT) appends that text to every
 * scrape: one target per process.
 *
 * Called before every connection: Core shuts its runtime down when its last connection closes, and
 * the SDK would re-create it on the port it was first given, which another process may hold by then.
 * A fresh port is picked for each runtime, and picked again if Core finds it taken.
 */
export async function installTemporalRuntime(
  cfg: AppConfig,
  base: Omit<RuntimeOptions, 'telemetryOptions'>,
  pickPort: () => Promise<number> = freeLoopbackPort,
): Promise<boolean> {
  if (Runtime._instance) return false;
  if (!cfg.metrics.enabled) return installed(() => Runtime.install(base));
  for (let attempt = 1; ; attempt++) {
    const port = await pickPort();
    try {
      const done = installed(() => Runtime.install({ ...base, telemetryOptions: prometheusOn(port) }));
      if (done) registerMetricsSource('temporal-sdk', `http://127.0.0.1:${port}/metrics`);
      return done;
    } catch (err) {
      if (!addressInUse(err) || attempt >= EXPORTER_BIND_ATTEMPTS) throw err;
    }
  }
}

/** Runs `install`; false when a runtime was installed meanwhile (another caller got there first). */
function installed(install: () => Runtime): boolean {
  try {
    install();
    return true;
  } catch (err) {
    if (err instanceof IllegalStateError && Runtime._instance) return false;
    throw err;
  }
}
