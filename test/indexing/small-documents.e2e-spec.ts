import type { S3Client } from '@aws-sdk/client-s3';
import { documentWorkflowId } from '@docqa/workflow-contract';
import type { TestApp } from '../support/app';
import { FakeGraph, startFakeGraph } from '../support/fake-graph';
import {
  closedStatus,
  createBucket,
  dbOf,
  documents,
  newAccount,
  paths,
  putMany,
  putObject,
  s3,
  s3Credentials,
  searchIndexOf,
  startIndex,
  startIndexingApp,
  temporalOf,
  waitFor,
} from './support';

/** A text of `n` paragraphs of about 1,000 characters, each with its own marker word. */
function longText(n: number): string {
  const filler = 'The tender inspects mooring lines, fenders, bollards and the harbour wall. ';
  return Array.from({ length: n }, (_, i) => `Paragraph marker${i}. ${filler.repeat(13)}`).join('\n\n');
}

/**
 * Issue 17: a small document is indexed by one activity (indexSmallDocument: extract, chunk,
 * embed, upsert, COMPLETE) and is searchable the moment it is COMPLETE, without a search-index
 * refresh per document; a large one continues with the separate, resumable steps; cancelling
 * while the one step runs (a SharePoint download that never answers) leaves the document
 * CANCELLED with nothing written. On Elasticsearch, whose writes become visible only at a refresh.
 */
describe('small documents in one step (issue 17)', () => {
  let app: TestApp;
  let client: S3Client;
  let bucket: string;
  let graph: FakeGraph;

  beforeAll(async () => {
    graph = await startFakeGraph();
    app = await startIndexingApp({
      env: {
        GRAPH_BASE_URL: graph.graphBaseUrl,
        MS_AUTHORITY_HOST: graph.authorityHost,
        SOURCE_CA_FILE: graph.caFile,
      },
    });
    client = s3();
    bucket = await createBucket(client);
  });
  afterAll(async () => {
    client?.destroy();
    await app?.close();
    await graph?.close();
  });

  /** Activity types of a document's workflow, in the order they were scheduled. */
  async function activitiesOf(
    documentId: string,
  ): Promise<{ types: string[]; events: number; workflowTasks: number }> {
    const h = await temporalOf(app).workflow.getHandle(documentWorkflowId(documentId)).fetchHistory();
    const events = h.events ?? [];
    return {
      types: events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []),
      events: events.length,
      workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length,
    };
  }

  async function statusOf(documentId: string): Promise<string | undefined> {
    const db = await dbOf(app);
    try {
      return (await db.query('SELECT status FROM documents WHERE id = $1', [documentId])).rows[0]?.status;
    } finally {
      await db.end();
    }
  }

  const search = (accountId: number, docSetName: string, text: string) =>
    searchIndexOf(app).search({
      accountId: accountId,
      docSetNames: [docSetName],
      text,
      limit: 10,
      minimumSimilarityScore: 0,
      mode: 'bm25',
    });

  it('indexes a small document in one activity, searchable once COMPLETE; a large one in the separate steps', async () => {
    const { token, accountId } = await newAccount(app);
    const docSetName = 'harbour';
    await putMany(client, bucket, [
      { key: 'small/keeper.txt', body: 'The lighthouse keeper logs every foghorn signal.' },
      { key: 'small/wall.txt', body: longText(130) },
    ]);
    const jobId = await startIndex(app, token, { docSetName, credentials: s3Credentials(bucket, 'small/') });

    // The moment the small document is COMPLETE, a search finds it (no refresh in between).
    let small: { id: string } | undefined;
    const deadline = Date.now() + 180_000;
    for (;;) {
      small ??= (await documents(app, accountId, docSetName)).find((d) => d.file_name === 'keeper.txt');
      if (small && (await statusOf(small.id)) === 'COMPLETE') break;
      if (Date.now() > deadline) throw new Error('keeper.txt did not become COMPLETE');
      await new Promise((r) => setTimeout(r, 20));
    }
    const hits = await search(accountId, docSetName, 'foghorn');
    expect(hits.map((h) => h.chunk.documentId)).toContain(small.id);

    await waitFor(app, token, docSetName);
    const docs = await documents(app, accountId, docSetName);
    expect(docs.map((d) => [d.file_name, d.status])).toEqual([
      ['keeper.txt', 'COMPLETE'],
      ['wall.txt', 'COMPLETE'],
    ]);
    const [keeper, wall] = docs;
    expect(keeper.chunk_count).toBe(1);
    expect(wall.chunk_count).toBeGreaterThan(96);

    const one = await activitiesOf(keeper.id);
    expect(one.types).toEqual(['indexSmallDocument']);
    // Two workflow tasks (start the step; complete): started, 2 x 3 workflow-task events, three
    // activity events, the patch marker and its search attribute, completed. Three steps took 23.
    expect(one.workflowTasks).toBe(2);
    expect(one.events).toBeLessThanOrEqual(13);
    expect((await activitiesOf(wall.id)).types).toEqual([
      'indexSmallDocument',
      'indexDocumentChunks',
      'finaliseDocument',
    ]);
    // Every chunk of the large document is searchable, the last one too.
    const last = await search(accountId, docSetName, 'marker129');
    expect(last.map((h) => h.chunk.documentId)).toContain(wall.id);

    const run = await app.client.get(paths.summary, { token });
    expect(run.body.docSets[0].lastRun).toMatchObject({
      jobId,
      status: 'COMPLETED',
      counts: expect.objectContaining({ completed: 2, failed: 0, cancelled: 0 }),
    });

    // A changed small document: the new version replaces the old one in the same single step.
    await putObject(client, bucket, 'small/keeper.txt', 'The lighthouse keeper now records tide tables.');
    await startIndex(app, token, { docSetName, credentials: s3Credentials(bucket, 'small/') });
    await waitFor(app, token, docSetName);
    expect((await documents(app, accountId, docSetName)).map((d) => d.status)).toEqual([
      'COMPLETE',
      'COMPLETE',
    ]);
    expect((await search(accountId, docSetName, 'tide')).map((h) => h.chunk.documentId)).toContain(keeper.id);
    expect((await search(accountId, docSetName, 'foghorn')).map((h) => h.chunk.documentId)).not.toContain(
      keeper.id,
    );
    expect((await searchIndexOf(app).stats(accountId)).chunks).toBe(1 + wall.chunk_count!);
    expect((await activitiesOf(keeper.id)).types).toEqual(['indexSmallDocument']);
  }, 400_000);

  it('cancelling while the one step runs leaves the document CANCELLED with nothing written', async () => {
    const { token, accountId } = await newAccount(app);
    const docSetName = 'notes';
    graph.addFile('Library/cancel/notes.txt', 'Harbour notes about the night shift.');
    const credentials = {
      tenantId: graph.app.tenantId,
      clientId: graph.app.clientId,
      clientSecret: graph.app.clientSecret,
      siteId: graph.siteId,
      driveId: graph.driveId,
      folderPath: '/Library/cancel',
    };
    // The download never answers: the step is running (INDEXING) and waits until it is cancelled.
    graph.hang(true, /\/content$/);
    try {
      await startIndex(app, token, { docSetName, sourceType: 'SHAREPOINT', credentials });
      await waitFor(app, token, docSetName, (p) => p.indexingCount === 1, 180_000, 50);
      const cancel = await app.client.post(paths.cancel(docSetName), undefined, { token });
      expect(cancel.status).toBe(202);
      await waitFor(app, token, docSetName, undefined, 180_000);
    } finally {
      graph.hang(false);
    }
    const [doc] = await documents(app, accountId, docSetName);
    expect(doc).toMatchObject({ status: 'CANCELLED', chunk_count: null, page_count: null });
    expect((await searchIndexOf(app).stats(accountId)).chunks).toBe(0);
    const handle = temporalOf(app).workflow.getHandle(documentWorkflowId(doc.id));
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = new Map(
      events.flatMap((e) =>
        e.activityTaskScheduledEventAttributes
          ? [[String(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name]]
          : [],
      ),
    );
    expect([...scheduled.values()]).toEqual(['indexSmallDocument', 'finaliseDocument']);
    // The cancellation reached the one step while it ran, and the step acknowledged it.
    const requested = events.find((e) => e.activityTaskCancelRequestedEventAttributes);
    expect(
      scheduled.get(String(requested?.activityTaskCancelRequestedEventAttributes?.scheduledEventId)),
    ).toBe('indexSmallDocument');
    expect(events.some((e) => e.activityTaskCanceledEventAttributes)).toBe(true);
    expect(await closedStatus(handle)).toBe('CANCELLED');

    // The next run indexes it.
    await startIndex(app, token, { docSetName, sourceType: 'SHAREPOINT', credentials });
    await waitFor(app, token, docSetName, undefined, 180_000);
    expect((await documents(app, accountId, docSetName)).map((d) => d.status)).toEqual(['COMPLETE']);
  }, 400_000);
});
