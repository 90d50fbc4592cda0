/* Shared by `npm run eval` (bench/eval) and `npm run bench:ask` (bench/ask): starts the real
 * engines from test/infra (Postgres, Temporal, S3, Elasticsearch when asked for), the API with its
 * Temporal worker in-process, a user, and each corpus indexed into its own docset, either through
 * the indexing pipeline (POST /index from S3, the default) or by direct seeding (same extraction,
 * chunking and embedder, upserted through the SearchIndex port). Traffic goes to 127.0.0.1 only. */
import './env';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { EMBEDDER, Embedder } from '@docqa/llm';
import * as path from 'node:path';
import { startTestApp, TestApp } from '../../test/support/app';
import { sharedDir, temporalNamespace } from '../../test/support/infra';
import type { QaItem } from './qa';
import { BLIND_CACHE_DIR, BLIND_QA_FILE, ensureBlindCorpus } from './blind-corpus';

export * from './qa';
import { CORPUS_DIR, closeCorpusExtractor, seedCorpus, accountIdOfToken } from '../../test/support/seed';

export const ROOT = path.resolve(__dirname, '../../../..');
const infraModule = (name: string) => require(path.join(ROOT, 'test/infra', name));

export type Engine = 'embedded' | 'elasticsearch';
export type Indexing = 'pipeline' | 'direct';

interface Stoppable {
  stop(): Promise<void>;
}

export const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

/** A QA corpus: PDFs and qa.jsonl in one directory of shared/corpus, or fetched (blind). */
export interface Corpus {
  name: string;
  /** The PDFs (and qa.jsonl unless `qaFile`). */
  dir: string;
  /** The questions, where they are not in `dir`. */
  qaFile?: string;
  /** Docset the corpus is indexed into. */
  docSetName: string;
  /** Licensed for measuring only: results keep no question, query or answer text (FinanceBench). */
  measureOnly?: boolean;
  /** Brings the PDFs into `dir` (fetched corpora). */
  prepare?: (log: (s: string) => void) => void;
}

export const CORPORA: Record<string, Corpus> = {
  dev: { name: 'dev', dir: CORPUS_DIR, docSetName: 'dev-corpus' },
  similar: { name: 'similar', dir: sharedDir('corpus', 'similar'), docSetName: 'similar-corpus' },
  // FinanceBench's development half (shared/corpus/financebench/SOURCES.md): read from shared/,
  // never copied into the repository (CC-BY-NC-4.0). All 34 filings go into one docset.
  financebench: {
    name: 'financebench',
    dir: sharedDir('corpus', 'financebench'),
    docSetName: 'financebench-corpus',
    measureOnly: true,
  },
  blind: {
    name: 'blind',
    dir: BLIND_CACHE_DIR,
    qaFile: BLIND_QA_FILE,
    docSetName: 'blind-corpus',
    prepare: ensureBlindCorpus,
  },
};

export interface Harness {
  app: TestApp;
  token: string;
  accountId: number;
  /** Docset of the first corpus. */
  docSetName: string;
  corpora: Corpus[];
  engine: Engine;
  indexing: Indexing;
  /** Seconds the first corpus took to index. */
  indexSeconds: number;
  /** Seconds each corpus took to index, by corpus name. */
  indexSecondsOf: Record<string, number>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  engine: Engine;
  indexing: Indexing;
  /** Corpora to index, each into its own docset (default: the dev corpus). */
  corpora?: Corpus[];
  /** Files of the first corpus to index (default: all its PDFs). */
  files?: string[];
  /**
   * Tuning aid for direct seeding: a file where document embeddings are kept by model and text,
   * so seeding the same corpus again skips the embedder (a semantic model takes minutes).
   */
  embeddingCache?: string;
  env?: Record<string, string>;
}

export function corpusFiles(dir = CORPUS_DIR): string[] {
  return fs
    .readdirSync(dir)
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
        // startTestApp points the app and its worker at this namespace, not `default`
        infraModule('temporal.js').startTemporal({ namespaces: [temporalNamespace()] }),
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
    if (o.embeddingCache) cacheEmbeddings(app, o.embeddingCache);
    const user = await register(app);
    const accountId = await accountIdOfToken(app, user.tokenId);
    const corpora = o.corpora ?? [CORPORA.dev];
    const indexSecondsOf: Record<string, number> = {};
    for (const [i, corpus] of corpora.entries()) {
      corpus.prepare?.(log);
      const files = (i === 0 ? o.files : undefined) ?? corpusFiles(corpus.dir);
      const t1 = Date.now();
      if (o.indexing === 'pipeline')
        await indexThroughPipeline(app, user.token, corpus.docSetName, corpus.dir, files);
      else await seedCorpus(app, accountId, corpus.docSetName, files, corpus.dir);
      indexSecondsOf[corpus.name] = (Date.now() - t1) / 1000;
      log(
        `indexed ${corpus.name}: ${files.length} files in ${indexSecondsOf[corpus.name].toFixed(1)} s (${o.indexing})`,
      );
    }
    if (o.indexing === 'direct') await closeCorpusExtractor();
    return {
      app,
      token: user.token,
      accountId,
      docSetName: corpora[0].docSetName,
      corpora,
      engine: o.engine,
      indexing: o.indexing,
      indexSeconds: indexSecondsOf[corpora[0].name],
      indexSecondsOf,
      close: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Wraps the app's embedder: document vectors are looked up in (and added to) the cache file. */
function cacheEmbeddings(app: TestApp, file: string): void {
  const embedder = app.api.app.get<Embedder>(EMBEDDER);
  const cache = new Map<string, number[]>(
    fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Array<[string, number[]]>) : [],
  );
  const key = (t: string) => createHash('sha1').update(`${embedder.modelName}\n${t}`).digest('hex');
  const embed = embedder.embedDocuments.bind(embedder);
  embedder.embedDocuments = async (texts: string[]) => {
    const missing = texts.filter((t) => !cache.has(key(t)));
    if (missing.length) {
      const vectors = await embed(missing);
      missing.forEach((t, i) => cache.set(key(t), vectors[i]));
      fs.writeFileSync(file, JSON.stringify([...cache]));
    }
    return texts.map((t) => cache.get(key(t)) as number[]);
  };
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

async function indexThroughPipeline(
  app: TestApp,
  token: string,
  docSetName: string,
  dir: string,
  files: string[],
) {
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
        Key: `${docSetName}/${f}`,
        Body: fs.readFileSync(path.join(dir, f)),
      }),
    );
  }
  s3.destroy();
  const start = await app.client.post(
    '/api/v1/document_proxy/index',
    { docSetName, credentials: { ...S3_KEYS, bucket, prefix: `${docSetName}/` } },
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

/** The questions of a corpus. */
export function corpusQa(corpus: Corpus): QaItem[] {
  return loadQa(corpus.dir, corpus.qaFile);
}

export function loadQa(dir = CORPUS_DIR, file = path.join(dir, 'qa.jsonl')): QaItem[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => fromEvidencePages(JSON.parse(l)));
}

/**
 * FinanceBench's items name their evidence as `{ fileName, page }` objects (every one in a single
 * filing); as a QaItem the first is the gold page and the others are `alsoOnPages`. Items of the
 * other corpora pass unchanged.
 */
export function fromEvidencePages(raw: QaItem | (Omit<QaItem, 'evidence'> & { evidence: unknown })): QaItem {
  const ev = raw.evidence;
  if (!Array.isArray(ev) || ev.length === 0 || typeof ev[0] !== 'object') return raw as QaItem;
  const pages = ev as Array<{ fileName: string; page: number }>;
  const [first] = pages;
  return {
    ...(raw as QaItem),
    evidence: undefined,
    fileName: first.fileName,
    page: first.page,
    alsoOnPages: pages
      .filter((p) => p.fileName === first.fileName && p.page !== first.page)
      .map((p) => p.page),
  };
}

export { percentile } from '../../test/support/stats';
