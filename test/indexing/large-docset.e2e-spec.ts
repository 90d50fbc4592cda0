import type { S3Client } from '@aws-sdk/client-s3';
import { docsetWorkflowId } from '@docqa/workflow-contract';
import type { TestApp } from '../support/app';
import {
  createBucket,
  documents,
  indexAndWait,
  newAccount,
  putMany,
  runRow,
  s3,
  s3Credentials,
  searchIndexOf,
  startIndexingApp,
  temporalOf,
} from './support';

// What is checked is the continue-as-new chain: ten runs or more, each under a history bound that
// does not grow with the docset. 300 files in runs of 30 children give that chain as 1,000 in runs
// of 100 did, in a third of the time; the throughput at scale is bench:sharepoint's to measure.
const FILES = Number(process.env.DOCQA_TEST_LARGE_FILES ?? 300);
const CHILDREN_PER_RUN = Number(process.env.DOCQA_TEST_LARGE_CHILDREN_PER_RUN ?? 30);
/**
 * Events one workflow run may have: each child costs a handful of events (start initiated, started,
 * completed, plus the workflow tasks around them), each batch fetch a few more. Without
 * continue-as-new, the files' children would take about ten times this.
 */
const MAX_EVENTS_PER_RUN = CHILDREN_PER_RUN * 12 + 200;

describe(`a docset of ${FILES} small files`, () => {
  let app: TestApp;
  let client: S3Client;

  beforeAll(async () => {
    app = await startIndexingApp({
      env: { INDEXING_CONCURRENCY: '8' },
      config: { indexing: { childrenPerRun: CHILDREN_PER_RUN } },
    });
    client = s3();
  });
  afterAll(async () => {
    client?.destroy();
    await app?.close();
  });

  it('completes, with every workflow run of the chain under a fixed history bound', async () => {
    const bucket = await createBucket(client, 'many');
    const { token, accountId } = await newAccount(app);
    const docSetName = 'many-small-files';
    await putMany(
      client,
      bucket,
      Array.from({ length: FILES }, (_, i) => ({
        key: `notes/${String(i).padStart(4, '0')}.txt`,
        body: `Note ${i}: the maintenance window for rack ${i % 37} is Tuesday at ${i % 24}:00.`,
      })),
      16,
    );
    const t0 = Date.now();
    const jobId = await indexAndWait(
      app,
      token,
      { docSetName, credentials: s3Credentials(bucket, 'notes/') },
      900_000,
    );
    const seconds = (Date.now() - t0) / 1000;

    const run = await runRow(app, jobId);
    expect(run.status).toBe('COMPLETED');
    expect(run.counters).toMatchObject({ listed: FILES, new: FILES, completed: FILES, failed: 0 });
    const docs = await documents(app, accountId, docSetName);
    expect(docs).toHaveLength(FILES);
    expect(docs.every((d) => d.status === 'COMPLETE')).toBe(true);
    expect((await searchIndexOf(app).stats(accountId)).chunks).toBe(FILES);

    // Walk the continue-as-new chain back from the latest run, checking each run's history length.
    const temporal = temporalOf(app);
    const workflowId = docsetWorkflowId(accountId, docSetName);
    const lengths: number[] = [];
    let runId: string | undefined = (await temporal.workflow.getHandle(workflowId).describe()).runId;
    while (runId) {
      const { events } = await temporal.workflow.getHandle(workflowId, runId).fetchHistory();
      lengths.unshift(events!.length);
      runId = events![0].workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    }
    console.log(
      `[large docset] ${FILES} files in ${seconds.toFixed(1)} s over ${lengths.length} workflow runs; events per run: ${lengths.join(', ')}`,
    );
    expect(lengths.length).toBeGreaterThanOrEqual(FILES / CHILDREN_PER_RUN);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(MAX_EVENTS_PER_RUN);

    const child = await temporal.workflow.getHandle(`document-index/${docs[0].id}`).fetchHistory();
    expect(child.events!.length).toBeLessThanOrEqual(60);
  }, 1_200_000);
});
