import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client as PgClient } from 'pg';
import type { Client as TemporalClient, WorkflowHandle } from '@temporalio/client';
import { optionalTsToMs, tsToMs } from '@temporalio/common';
import { TEMPORAL_CLIENT } from '@docqa/common';
import { SEARCH_INDEX, SearchIndex } from '@docqa/search';
import { register } from '../accounts/support';
import { startTestApp, TestApp, TestAppOptions } from '../support/app';
import { infra, sharedDir, uniqueName } from '../support/infra';

export const CORPUS_DIR = sharedDir('corpus', 'dev');
export const S3_KEYS = { accessKeyId: 'docqa-test-key', secretAccessKey: 'docqa-test-secret-Zq81' };

/**
 * The API with the worker in-process, reading S3 from the local S3 server, with its own chunk
 * index (account ids restart at 1 in every test database), deleted again on close. These suites
 * check indexing mechanics and BM25 text coverage over hundreds of pages, not vector ranking, so
 * they use the hashing embedder: MiniLM would add minutes of embedding per suite on 2 cores.
 */
export async function startIndexingApp(o: TestAppOptions = {}): Promise<TestApp> {
  // startTestApp gives the app its own Elasticsearch alias and removes it at close.
  return startTestApp({
    worker: true,
    ...o,
    env: {
      S3_ENDPOINT: infra().s3Endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_REGION: 'us-east-1',
      LOCAL_EMBEDDER: 'hashing',
      ...(o.env ?? {}),
    },
  });
}

export function s3(): S3Client {
  return new S3Client({
    endpoint: infra().s3Endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    // A copy: the SDK marks the credentials object it is given (adds `$source`).
    credentials: { ...S3_KEYS },
  });
}

/** A fresh bucket on the local S3 server. */
export async function createBucket(client: S3Client, prefix = 'docqa'): Promise<string> {
  const bucket = uniqueName(prefix).toLowerCase();
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return bucket;
}

/** One upload; the local S3 server can drop a connection when the machine is saturated, so retry. */
export async function putObject(
  client: S3Client,
  bucket: string,
  key: string,
  body: Buffer | string,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
      return;
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (attempt >= 5 || !['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT'].includes(code)) throw err;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

export async function deleteObject(client: S3Client, bucket: string, key: string): Promise<void> {
  await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
}

/** Uploads many objects, `parallel` at a time. */
export async function putMany(
  client: S3Client,
  bucket: string,
  objects: Array<{ key: string; body: Buffer | string }>,
  parallel = 16,
): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (i < objects.length) {
        const o = objects[i++];
        await putObject(client, bucket, o.key, o.body);
      }
    }),
  );
}

export function corpusFiles(): string[] {
  return fs
    .readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.pdf'))
    .sort();
}

export async function uploadCorpus(client: S3Client, bucket: string, prefix: string, files = corpusFiles()) {
  await putMany(
    client,
    bucket,
    files.map((f) => ({ key: `${prefix}${f}`, body: fs.readFileSync(path.join(CORPUS_DIR, f)) })),
    4,
  );
}

/** Physical page count as `pdfinfo` (poppler-utils) reports it. */
export function pdfinfoPages(file: string): number {
  const out = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
  const m = /^Pages:\s+(\d+)/m.exec(out);
  if (!m) throw new Error(`pdfinfo gave no page count for ${file}`);
  return Number(m[1]);
}

export interface QaItem {
  id: string;
  question: string;
  answer: string;
  fileName: string;
  page: number;
  kind: string;
  alsoOnPages?: number[];
}

export function answerableQa(): QaItem[] {
  return fs
    .readFileSync(path.join(CORPUS_DIR, 'qa.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as QaItem)
    .filter((q) => q.kind !== 'unanswerable');
}

// Normalisation of shared/corpus/verify_qa.sh: NFKC, typographic quotes/dashes/spaces to ASCII,
// soft hyphens dropped, words hyphenated across a line break joined (with and without the hyphen),
// whitespace collapsed, lower-cased.
const TR: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u2032': "'", '`': "'", '\u00b4': "'",
  '\u201c': '"', '\u201d': '"', '\u201e': '"', '\u201f': '"', '\u00ab': '"', '\u00bb': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u00a0': ' ', '\u2009': ' ', '\u202f': ' ', '\u2007': ' ', '\u200b': '', '\u00ad': '', '\ufffd': ' ',
}; // prettier-ignore
const chars = (s: string) => [...s.normalize('NFKC')].map((c) => TR[c] ?? c).join('');
export function textVariants(text: string): string[] {
  const t = chars(text);
  return [t.replace(/(\w)-[ \t]*\n[ \t]*(\w)/g, '$1$2'), t.replace(/(\w)-[ \t]*\n[ \t]*(\w)/g, '$1-$2')].map(
    (v) => v.replace(/\s+/g, ' ').trim().toLowerCase(),
  );
}
export function normalisedAnswer(answer: string): string {
  return chars(answer).replace(/\s+/g, ' ').trim().toLowerCase();
}

/** A registered user (fresh account) and their default API token. */
export async function newAccount(
  app: TestApp,
): Promise<{ token: string; accountId: number; userId: number }> {
  const user = await register(app);
  const db = await dbOf(app);
  try {
    const { rows } = await db.query('SELECT account_id FROM api_tokens WHERE id = $1', [user.tokenId]);
    return { token: user.token, accountId: Number(rows[0].account_id), userId: user.id };
  } finally {
    await db.end();
  }
}

export async function dbOf(app: TestApp): Promise<PgClient> {
  const c = new PgClient({ connectionString: app.cfg.database.url });
  await c.connect();
  return c;
}

export function searchIndexOf(app: TestApp): SearchIndex {
  return app.api.app.get<SearchIndex>(SEARCH_INDEX);
}

export function temporalOf(app: TestApp): TemporalClient {
  return app.api.app.get<TemporalClient>(TEMPORAL_CLIENT);
}

/** A pending activity's last failure, as the Temporal UI shows it. */
export interface PendingFailure {
  activityType: string;
  message: string;
  /** The attempt that failed (the pending attempt is the next one). */
  failedAttempt: number;
  /** The wait before the next attempt the failure asked for (`nextRetryDelay`), 0 if none. */
  waitMs: number;
  /** The server's next attempt time minus the failed attempt's end, or undefined when not scheduled. */
  scheduledMs?: number;
}

/** The last failures of the pending activities of the running workflows `query` selects. */
export async function pendingFailures(temporal: TemporalClient, query: string): Promise<PendingFailure[]> {
  const found: PendingFailure[] = [];
  for await (const wf of temporal.workflow.list({ query })) {
    const d = await temporal.workflow.getHandle(wf.workflowId, wf.runId).describe();
    for (const a of d.raw.pendingActivities ?? []) {
      const message = a.lastFailure?.message ?? '';
      if (!message) continue;
      found.push({
        activityType: a.activityType?.name ?? '',
        message,
        failedAttempt: (a.attempt ?? 1) - 1,
        waitMs: optionalTsToMs(a.lastFailure?.applicationFailureInfo?.nextRetryDelay) ?? 0,
        scheduledMs:
          a.nextAttemptScheduleTime && a.lastAttemptCompleteTime
            ? tsToMs(a.nextAttemptScheduleTime) - tsToMs(a.lastAttemptCompleteTime)
            : undefined,
      });
    }
  }
  return found;
}

/**
 * Checks that each failure asks for the unavailable-dependency wait of its attempt (first wait
 * `firstMs`, doubling to 2 minutes; libs/indexing/src/activities/failures.ts) and that the server
 * scheduled the next attempt by it.
 */
export function expectUnavailableWaits(failures: PendingFailure[], firstMs: number): void {
  expect(failures.length).toBeGreaterThan(0);
  for (const f of failures) {
    expect(f.failedAttempt).toBeGreaterThanOrEqual(1);
    expect(f.waitMs).toBe(Math.min(firstMs * 2 ** (f.failedAttempt - 1), 120_000));
    if (f.scheduledMs !== undefined) expect(Math.abs(f.scheduledMs - f.waitMs)).toBeLessThan(1500);
  }
}

const P = '/api/v1/document_proxy';
export const paths = {
  index: `${P}/index`,
  checkSource: `${P}/index/check-source`,
  cancel: (name: string) => `${P}/index/cancel/${encodeURIComponent(name)}`,
  retry: (id: string) => `${P}/index/retry/${encodeURIComponent(id)}`,
  docsets: `${P}/index/docsets`,
  progress: (name: string) => `${P}/index/progress/${encodeURIComponent(name)}`,
  summary: `${P}/documents/indexing-summary`,
};

export interface IndexBody {
  docSetName: string;
  credentials?: Record<string, unknown>;
  indexOptions?: { targetIndexTypes?: string[]; forceReindex?: boolean; ocr?: boolean };
  async?: boolean;
  sourceType?: string;
  summaryModel?: string;
  accountName?: string;
}

export function s3Credentials(bucket: string, prefix = ''): Record<string, unknown> {
  return { ...S3_KEYS, bucket, prefix };
}

export async function startIndex(app: TestApp, token: string, body: IndexBody): Promise<string> {
  const res = await app.client.post(paths.index, body, { token });
  if (res.status !== 202) throw new Error(`POST /index: ${res.status} ${res.text}`);
  return res.body.jobId as string;
}

export interface Progress {
  pendingCount: number;
  indexingCount: number;
  completedCount: number;
  errorCount: number;
  isIndexing: boolean;
}

export async function progress(app: TestApp, token: string, docSetName: string): Promise<Progress> {
  const res = await app.client.get(paths.progress(docSetName), { token });
  if (res.status !== 200) throw new Error(`progress: ${res.status} ${res.text}`);
  return res.body as Progress;
}

/** Polls progress until `done` holds (default: no run open). */
export async function waitFor(
  app: TestApp,
  token: string,
  docSetName: string,
  done: (p: Progress) => boolean = (p) => !p.isIndexing,
  timeoutMs = 240_000,
  everyMs = 250,
): Promise<Progress> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const p = await progress(app, token, docSetName);
    if (done(p)) return p;
    if (Date.now() > deadline) throw new Error(`timed out waiting on ${docSetName}: ${JSON.stringify(p)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * A workflow's status once it has closed. A run records its outcome in its row just before its
 * workflow closes, so a describe right after the API reports the run ended can still say RUNNING.
 */
export async function closedStatus(handle: WorkflowHandle): Promise<string> {
  await handle.result().catch(() => undefined);
  return (await handle.describe()).status.name;
}

/** One run: start it and wait until the docset has no open run; returns the jobId. */
export async function indexAndWait(
  app: TestApp,
  token: string,
  body: IndexBody,
  timeoutMs?: number,
): Promise<string> {
  const jobId = await startIndex(app, token, body);
  await waitFor(app, token, body.docSetName, undefined, timeoutMs);
  return jobId;
}

export interface DocRow {
  id: string;
  file_name: string;
  status: string;
  page_count: number | null;
  chunk_count: number | null;
  error: string | null;
  summary: string | null;
  source_id: string;
  etag: string | null;
}

export async function documents(app: TestApp, accountId: number, docSetName: string): Promise<DocRow[]> {
  const db = await dbOf(app);
  try {
    const { rows } = await db.query(
      `SELECT id, file_name, status, page_count, chunk_count, error, summary, source_id, etag FROM documents
        WHERE account_id = $1 AND docset_name = $2 ORDER BY file_name`,
      [accountId, docSetName],
    );
    return rows as DocRow[];
  } finally {
    await db.end();
  }
}

export async function runRow(app: TestApp, jobId: string) {
  const db = await dbOf(app);
  try {
    const { rows } = await db.query('SELECT * FROM index_runs WHERE id = $1', [jobId]);
    return rows[0] as {
      status: string;
      counters: Record<string, number>;
      error: string | null;
      credentials_enc: string | null;
      options: Record<string, unknown>;
    };
  } finally {
    await db.end();
  }
}

/** Chunk ids of one document in the index, through the search port (BM25 on its own text). */
export async function chunkCountOf(app: TestApp, accountId: number): Promise<number> {
  return (await searchIndexOf(app).stats(accountId)).chunks;
}
