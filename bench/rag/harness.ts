/* Shared by `npm run eval` (bench/eval) and `npm run bench:ask` (bench/ask): starts the real
 * engines from test/infra (Postgres, Temporal, S3, Elasticsearch when asked for), the API with its
 * Temporal worker in-process, a user, and the dev corpus indexed into one docset, either through
 * the indexing pipeline (POST /index from S3, the default) or by direct seeding (same extraction,
 * chunking and embedder, upserted through the SearchIndex port). Traffic goes to 127.0.0.1 only. */
import './env';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestApp, TestApp } from '../../test/support/app';
import {
  CORPUS_DIR,
  closeCorpusExtractor,
  DevQaItem,
  seedCorpus,
  accountIdOfToken,
} from '../../test/support/seed';

export const ROOT = path.resolve(__dirname, '../../../..');
const infraModule = (name: string) => require(path.join(ROOT, 'test/infra', name));

export type Engine = 'embedded' | 'elasticsearch';
export type Indexing = 'pipeline' | 'direct';

interface Stoppable {
  stop(): Promise<void>;
}

export const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

export interface Harness {
  app: TestApp;
  token: string;
  accountId: number;
  docSetName: string;
  engine: Engine;
  indexing: Indexing;
  /** Seconds the corpus took to index. */
  indexSeconds: number;
  close(): Promise<void>;
}

export interface HarnessOptions {
  engine: Engine;
  indexing: Indexing;
  files?: string[];
  env?: Record<string, string>;
}

export function corpusFiles(): string[] {
  return fs
    .readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.pdf'))
    .sort();
}

/** Starts what the options need; everything started is stopped by `close()`. */
export async function startHarness(o: HarnessOptions): Promise<Harness> {
  const started: Stoppable[] = [];
  const stopAll = async () => {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
  };
  try {
    const t0 = Date.now();
    const pg = await infraModule('postgres.js').startPostgres();
    started.push(pg);
    process.env.DOCQA_TEST_POSTGRES_URL = pg.url;
    if (o.indexing === 'pipeline') {
      const [temporal, s3] = await Promise.all([
        infraModule('temporal.js').startTemporal(),
        infraModule('s3.js').startS3(),
      ]);
      started.push(temporal, s3);
      process.env.DOCQA_TEST_TEMPORAL_ADDRESS = temporal.address;
      process.env.DOCQA_TEST_TEMPORAL_CLI = temporal.bin;
      process.env.DOCQA_TEST_S3_ENDPOINT = s3.url;
    } else {
      // No worker and no indexing: the Temporal client is lazy and never connects.
      process.env.DOCQA_TEST_TEMPORAL_ADDRESS = '127.0.0.1:1';
      process.env.DOCQA_TEST_TEMPORAL_CLI = 'temporal';
      process.env.DOCQA_TEST_S3_ENDPOINT = 'http://127.0.0.1:1';
    }
    if (o.engine === 'elasticsearch') {
      const es = await infraModule('elasticsearch.js').startElasticsearch();
      started.push(es);
      process.env.DOCQA_TEST_ELASTICSEARCH_URL = es.url;
    } else {
      process.env.DOCQA_TEST_ELASTICSEARCH_URL = 'http://127.0.0.1:1';
    }
    log(`engines up in ${Date.now() - t0} ms (${o.engine}, ${o.indexing})`);

    const app = await startTestApp({
      worker: o.indexing === 'pipeline',
      embeddedSearch: o.engine === 'embedded',
      env: {
        LOG_LEVEL: 'warn',
        ...(o.indexing === 'pipeline'
          ? {
              S3_ENDPOINT: process.env.DOCQA_TEST_S3_ENDPOINT,
              S3_FORCE_PATH_STYLE: 'true',
              S3_REGION: 'us-east-1',
            }
          : {}),
        ...(o.env ?? {}),
      },
    });
    started.push({ stop: () => app.close() });
    const user = await register(app);
    const accountId = await accountIdOfToken(app, user.tokenId);
    const docSetName = 'dev-corpus';
    const files = o.files ?? corpusFiles();
    const t1 = Date.now();
    if (o.indexing === 'pipeline') await indexThroughPipeline(app, user.token, docSetName, files);
    else {
      await seedCorpus(app, accountId, docSetName, files);
      await closeCorpusExtractor();
    }
    const indexSeconds = (Date.now() - t1) / 1000;
    log(`indexed ${files.length} files in ${indexSeconds.toFixed(1)} s (${o.indexing})`);
    return {
      app,
      token: user.token,
      accountId,
      docSetName,
      engine: o.engine,
      indexing: o.indexing,
      indexSeconds,
      close: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function register(app: TestApp): Promise<{ token: string; tokenId: number }> {
  const password = `pw-${Date.now()}-bench`;
  const res = await app.client.post('/api/v1/users', {
    user: {
      email: `bench-${Date.now()}@example.com`,
      password,
      password_confirmation: password,
      name: 'Bench',
    },
  });
  if (res.status !== 200) throw new Error(`register: ${res.status} ${res.text}`);
  const t = res.body.user.api_tokens[0];
  return { token: t.token, tokenId: t.id };
}

const S3_KEYS = { accessKeyId: 'docqa-bench-key', secretAccessKey: 'docqa-bench-secret' };

async function indexThroughPipeline(app: TestApp, token: string, docSetName: string, files: string[]) {
  const s3 = new S3Client({
    endpoint: process.env.DOCQA_TEST_S3_ENDPOINT,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { ...S3_KEYS }, // a copy: the SDK marks the object it is given ($source)
  });
  const bucket = `docqa-bench-${Date.now()}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  for (const f of files) {
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `dev/${f}`,
        Body: fs.readFileSync(path.join(CORPUS_DIR, f)),
      }),
    );
  }
  s3.destroy();
  const start = await app.client.post(
    '/api/v1/document_proxy/index',
    { docSetName, credentials: { ...S3_KEYS, bucket, prefix: 'dev/' } },
    { token },
  );
  if (start.status !== 202) throw new Error(`POST /index: ${start.status} ${start.text}`);
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    const p = await app.client.get(
      `/api/v1/document_proxy/index/progress/${encodeURIComponent(docSetName)}`,
      { token },
    );
    if (p.status !== 200) throw new Error(`progress: ${p.status} ${p.text}`);
    if (!p.body.isIndexing) {
      if (p.body.completedCount !== files.length) {
        throw new Error(`indexing ended with ${JSON.stringify(p.body)} (expected ${files.length} complete)`);
      }
      return;
    }
    if (Date.now() > deadline) throw new Error(`indexing timed out: ${JSON.stringify(p.body)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

// Normalisation of shared/corpus/verify_qa.sh: NFKC, typographic quotes/dashes/spaces to ASCII,
// soft hyphens dropped, hyphenated line breaks joined with and without the hyphen, whitespace
// collapsed, lower-cased.
const TR: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u2032': "'", '`': "'", '\u00b4': "'",
  '\u201c': '"', '\u201d': '"', '\u201e': '"', '\u201f': '"', '\u00ab': '"', '\u00bb': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u00a0': ' ', '\u2009': ' ', '\u202f': ' ', '\u2007': ' ', '\u200b': '', '\u00ad': '', '\ufffd': ' ',
}; // prettier-ignore
const chars = (s: string) => [...s.normalize('NFKC')].map((c) => TR[c] ?? c).join('');

/** Page text variants as verify_qa.sh builds them. */
export function pageVariants(text: string): string[] {
  const t = chars(text);
  return [t.replace(/(\w)-[ \t]*\n[ \t]*(\w)/g, '$1$2'), t.replace(/(\w)-[ \t]*\n[ \t]*(\w)/g, '$1-$2')].map(
    (v) => v.replace(/\s+/g, ' ').trim().toLowerCase(),
  );
}

/**
 * Answer text variants: as written, and with the line-break hyphens the extractive answerer keeps
 * (`dimen-sions`) joined, since it cannot tell them from real compounds.
 */
export function answerVariants(text: string): string[] {
  const t = chars(text).replace(/\s+/g, ' ').trim().toLowerCase();
  return [t, t.replace(/(\w)-(\w)/g, '$1$2')];
}

export function normalisedPhrase(s: string): string {
  return chars(s).replace(/\s+/g, ' ').trim().toLowerCase();
}

export function loadQa(): DevQaItem[] {
  return fs
    .readFileSync(path.join(CORPUS_DIR, 'qa.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as DevQaItem);
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
