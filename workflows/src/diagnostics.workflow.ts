import { proxyActivities } from '@temporalio/workflow';
import type { DiagnosticsActivities } from '@docqa/indexing/diagnostics.activities';

const { echo } = proxyActivities<DiagnosticsActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/** Round trip through a worker: used by tests and by operators to check a deployment. */
export async function diagnosticsWorkflow(message: string): Promise<string> {
  return await echo(message);
}
