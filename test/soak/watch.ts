// The soak's watch on health and Temporal: `/health` every 2 s, Temporal's pending activities
// every third round.
import type { Client as TemporalClient } from '@temporalio/client';
import { INDEXING_STALL_AFTER_MS } from '../../apps/api/src/health/health.service';
import { P, sleep, Soak } from './context';
import type { SoakReport } from './report';

/** The product's INDEXING_STALL_AFTER_MS (a constant of its health check). */
const STALL_AFTER_MS = INDEXING_STALL_AFTER_MS;

/**
 * Health must not say ok while a step is stuck. Stuck, in Temporal's own records: an activity
 * that has waited to start for longer than INDEXING_STALL_AFTER_MS. Heartbeat timeouts (a step
 * that neither finished nor heartbeated) are counted too. `metricsPort` (the operator's view)
 * explains a 503 in the soak log.
 */
export function healthWatch(soak: Soak, temporal: TemporalClient, metricsPort: string | undefined) {
  const { c, log, problem } = soak;
  const health = { samples: 0, ok: 0, unavailable: 0, down: {} as Record<string, number> };
  let stuckObservations = 0;
  let heartbeatTimeouts = 0;
  let stuckSince: number | undefined;
  const timedOut = new Set<string>();
  const seconds = (t?: { seconds?: unknown } | null) => (t ? Number(t.seconds ?? 0) * 1000 : 0);

  const run = async () => {
    let round = 0;
    while (!soak.stopping()) {
      const r = await c.get(`${P}/health`).catch(() => undefined);
      health.samples++;
      if (r?.status === 200) health.ok++;
      else {
        health.unavailable++;
        for (const part of (r?.body?.down as string[] | undefined) ?? ['(no answer)'])
          health.down[part] = (health.down[part] ?? 0) + 1;
        if (metricsPort) {
          const details = await fetch(`http://127.0.0.1:${metricsPort}/health`)
            .then((x) => x.text())
            .catch((err: Error) => err.message);
          log(`health ${r?.status}: ${details}`);
        }
      }
      if (round++ % 3 === 0) {
        let stuck = false;
        try {
          for await (const wf of temporal.workflow.list({ query: `ExecutionStatus = 'Running'` })) {
            const d = await temporal.workflow
              .getHandle(wf.workflowId, wf.runId)
              .describe()
              .catch(() => undefined);
            for (const a of d?.raw.pendingActivities ?? []) {
              // TIMEOUT_TYPE_HEARTBEAT = 4: an attempt that neither finished nor heartbeated in time
              if (a.lastFailure?.timeoutFailureInfo?.timeoutType === 4)
                timedOut.add(`${wf.workflowId}/${a.activityId}/${a.attempt}`);
              // PENDING_ACTIVITY_STATE_SCHEDULED = 1: waiting for a worker slot since it became due
              const due = seconds(a.nextAttemptScheduleTime) || seconds(a.scheduledTime);
              if (a.state === 1 && due && Date.now() - due > STALL_AFTER_MS) stuck = true;
            }
          }
        } catch {
          // Temporal busy: judged at the next round
        }
        if (stuck) {
          stuckObservations++;
          stuckSince ??= Date.now();
          // The stall rule needs STALL_AFTER_MS without progress, plus a probe: allow it that long.
          if (r?.status === 200 && Date.now() - stuckSince > STALL_AFTER_MS + 10_000)
            problem('health said ok while an activity had waited to start for over INDEXING_STALL_AFTER_MS');
        } else stuckSince = undefined;
      }
      await sleep(2000);
    }
    heartbeatTimeouts = timedOut.size;
  };

  const summary = (): Pick<SoakReport, 'health' | 'stuckObservations' | 'heartbeatTimeouts'> => ({
    health,
    stuckObservations,
    heartbeatTimeouts,
  });

  return { run, summary };
}
