// Starting a run's workflow while Temporal does not know the namespace yet. Right after the
// embedded dev server starts, its namespace can be unknown to the frontend for a moment (the server
// caches a lookup's miss for about a second); a first POST /index then answered 503 in the soak.
// The start is tried again until its deadline; a namespace that never appears still ends in 503.
import type { S3Client } from '@aws-sdk/client-s3';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { docsetWorkflowId, SEARCH_ATTRIBUTES } from '@docqa/workflow-contract';
import type { TestApp } from '../support/app';
import { infra, uniqueName } from '../support/infra';
import { eventually } from '../support/wait';
import {
  createBucket,
  newAccount,
  paths,
  putMany,
  runRow,
  s3,
  s3Credentials,
  startIndexingApp,
  temporalOf,
} from './support';

const NOT_KNOWN_YET = 'Temporal does not know the namespace yet';

describe('starting a run while Temporal does not know the namespace', () => {
  let connection: Connection;
  let client: S3Client;
  let bucket: string;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    connection = await Connection.connect({ address: infra().temporalAddress });
    client = s3();
    bucket = await createBucket(client);
    await putMany(client, bucket, [{ key: 'ns/note.txt', body: 'A note about namespaces.\n' }]);
  });
  afterAll(async () => {
    client?.destroy();
    for (const app of apps) await app.close();
    await connection?.close();
  });

  async function appOn(namespace: string): Promise<TestApp> {
    // No worker: the worker would poll the namespace this test creates late.
    const app = await startIndexingApp({ worker: false, env: { TEMPORAL_NAMESPACE: namespace } });
    apps.push(app);
    return app;
  }

  it('tries the start again until the namespace exists, then answers 202 with the workflow running', async () => {
    const namespace = uniqueName('late-ns');
    const app = await appOn(namespace);
    const { token, accountId } = await newAccount(app);
    const docSetName = uniqueName('late');
    const answer = app.client.post(
      paths.index,
      { docSetName, credentials: s3Credentials(bucket, 'ns/') },
      { token },
    );
    // The first start was refused (logged), and the request is still waiting for the next.
    await eventually(async () => (app.logs().includes(NOT_KNOWN_YET) ? true : undefined), 15_000, 50);
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    // Then its search attributes, as the dev server does; the frontend refuses the namespace for
    // about a second after registering it (it cached the miss), so this is tried until it takes.
    const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
    await eventually(() =>
      connection.operatorService
        .addSearchAttributes({
          namespace,
          searchAttributes: Object.fromEntries(Object.keys(SEARCH_ATTRIBUTES).map((name) => [name, keyword])),
        })
        .then(
          () => true,
          () => undefined,
        ),
    );

    const res = await answer;
    expect(res.status).toBe(202);
    expect((await runRow(app, res.body.jobId)).status).toBe('RUNNING');
    const handle = temporalOf(app).workflow.getHandle(docsetWorkflowId(accountId, docSetName));
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.terminate('test over');
  });

  it('a namespace that never appears still answers 503 at the deadline and closes the run FAILED', async () => {
    const app = await appOn(uniqueName('absent-ns'));
    const { token } = await newAccount(app);
    const docSetName = uniqueName('absent');
    const res = await app.client.post(
      paths.index,
      { docSetName, credentials: s3Credentials(bucket, 'ns/') },
      { token },
    );
    expect(res.status).toBe(503);
    expect(res.body.errorCode).toBe('DEPENDENCY_UNAVAILABLE');
    // Tried again (logged once), then given up with the server's reason.
    expect(app.logs().split(NOT_KNOWN_YET).length - 1).toBe(1);
    expect(app.logs()).toContain('"errName":"NamespaceNotFoundError"');
    // The run it opened is closed: nothing is left indexing.
    const after = await app.client.get(paths.progress(docSetName), { token });
    expect(after.status).toBe(200);
    expect(after.body.isIndexing).toBe(false);
  });
});
