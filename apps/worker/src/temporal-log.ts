import { Logger } from '@nestjs/common';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import { loggableError, withoutSql } from '@docqa/common';

/** Meta fields the Temporal SDK attaches that name the step; other strings are dropped. */
const STEP_FIELDS = new Set([
  'namespace',
  'taskQueue',
  'workflowId',
  'workflowRunId',
  'runId',
  'workflowType',
  'activityId',
  'activityType',
  'sdkComponent',
]);

/**
 * A Temporal log entry's meta reduced to what a log line may carry: the step (activity and
 * workflow ids and types, attempt, duration) and, for an error, its name and code (loggableError:
 * no stack, SQL, query parameters or driver detail). The SDK's "Activity failed" line would
 * otherwise print the whole error, which for a failed query is the SQL with its parameters: the
 * text of the document being indexed.
 */
export function temporalLogFields(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta ?? {})) {
    if (v instanceof Error || k === 'error' || k === 'failure') Object.assign(out, loggableError(v));
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = v;
    else if (typeof v === 'string' && STEP_FIELDS.has(k)) out[k] = v;
  }
  return out;
}

const log = new Logger('Temporal');

function write(entry: LogEntry): void {
  const fields = temporalLogFields(entry.meta);
  const message = withoutSql(entry.message);
  if (entry.level === 'ERROR') log.error(fields, message);
  else if (entry.level === 'WARN') log.warn(fields, message);
  else if (entry.level === 'INFO') log.log(fields, message);
  else log.debug(fields, message);
}

/** The Temporal runtime's logger: WARN and above, through the application's log (JSON lines, LOG_FILE). */
export function temporalLogger(): DefaultLogger {
  return new DefaultLogger('WARN', write);
}
