/* Indexing benchmark: the dev corpus (16 PDFs, 935 pages) from a local S3 server,
 *   (a) through the full Temporal pipeline (docset workflow, one child workflow per document,
 *       activities on a worker), and
 *   (b) through the same pipeline steps the activities call, directly in one process,
 * both with the same document concurrency (INDEXING_CONCURRENCY, default 4), each on a fresh
 * docset, with the semantic embedder (LOCAL_EMBEDDER=minilm unless set), and in every round
 *   (c) `pdftotext` (poppler) extracting the same files at the same concurrency, the floor any
 *       indexer pays: indexing time is reported as a ratio to it.
 * Reports pages/s and documents/s, the orchestration overhead and the pdftotext ratio.
 *   npm run bench:indexing
 *   BENCH_ENGINE=embedded npm run bench:indexing        (embedded search engine instead of ES)
 *   BENCH_ROUNDS=3 INDEXING_CONCURRENCY=2 npm run bench:indexing
 *   BENCH_PATHS=temporal LOCAL_EMBEDDER_PRECISION=fp32 npm run bench:indexing
 * Starts Postgres, Temporal, the S3 server (and Elasticsearch) from test/infra; writes
 * bench/indexing/results.json and prints a Markdown table. */
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client as PgClient } from 'pg';
import { loadConfig } from '@docqa/common';
import { DocsetPipeline, DocumentPipeline, RunStore, StartIndexing } from '@docqa/indexing';
import {
  Embedder,
  EMBEDDER,
  LOCAL_EMBEDDER_SESSIONS,
  LOCAL_EMBEDDER_THREADS,
  OnnxEmbedder,
} from '@docqa/embeddings';
import { SourceCredentialsCipher } from '@docqa/sources';
import { startWorker } from '../../apps/worker/src/main';
import { productEmbedderEnv } from '../../test/support/tuning-env';

const ROOT = path.resolve(__dirname, '../../../..');
const SHARED = process.env.BENCH_SHARED ?? path.resolve(ROOT, '../shared');
const CORPUS = path.join(SHARED, 'corpus', 'dev');
const ENGINE = process.env.BENCH_ENGINE ?? 'elasticsearch';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONCURRENCY = Number(process.env.INDEXING_CONCURRENCY ?? 4);
const PATHS = (process.env.BENCH_PATHS ?? 'temporal,direct').split(',') as Array<'temporal' | 'direct'>;
const KEYS = { accessKeyId: 'bench-key', secretAccessKey: 'bench-secret' };

type Stoppable = { stop(): Promise<void> };
const log = (s: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}`);
const infra = <T>(name: string): T => require(path.join(ROOT, 'test/infra', `${name}.js`)) as T;

interface Measure {
  path: 'temporal' | 'direct' | 'pdftotext';
  round: number;
  seconds: number;
  documents: number;
  pages: number;
  chunks: number;
  pagesPerSecond: number;
  documentsPerSecond: number;
  /** Direct path only: time inside extraction vs chunk+embed+upsert, summed over documents. */
  extractSeconds?: number;
  indexSeconds?: number;
  /**
   * Indexing paths: chunks embedded, the inference threads' busy time summed over sessions
   * (OnnxEmbedder), and chunks per second of that busy time times the sessions (the rate with every
   * session busy).
   */
  embedChunks?: number;
  embedSeconds?: number;
  embedChunksPerSecond?: number;
  loadAverage?: number;
}

const execFileP = (cmd: string, args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile(cmd, args, { maxBuffer: 256 * 2 ** 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );

/** Pages of each PDF, by poppler's pdfinfo. */
async function pdfPages(file: string): Promise<number> {
  const m = /^Pages:\s+(\d+)/m.exec(await execFileP('pdfinfo', [file]));
  if (!m) throw new Error(`pdfinfo: no page count for ${file}`);
  return Number(m[1]);
}

async function main() {
  const started: Stoppable[] = [];
  try {
    log('starting Postgres, Temporal and the S3 server (test/infra)');
    const [pg, temporal, s3srv] = await Promise.all([
      infra<{ startPostgres(): Promise<Stoppable & { url: string }> }>('postgres').startPostgres(),
      infra<{ startTemporal(): Promise<Stoppable & { address: string }> }>('temporal').startTemporal(),
      infra<{ startS3(): Promise<Stoppable & { url: string }> }>('s3').startS3(),
    ]);
    started.push(pg, temporal, s3srv);
    let esUrl: string | undefined;
    if (ENGINE === 'elasticsearch') {
      log('starting Elasticsearch (test/infra)');
      const es = await infra<{ startElasticsearch(): Promise<Stoppable & { url: string }> }>(
        'elasticsearch',
      ).startElasticsearch();
      started.push(es);
      esUrl = es.url;
    }

    const admin = new PgClient({ connectionString: pg.url });
    await admin.connect();
    await admin.query('CREATE DATABASE bench_indexing');
    await admin.end();
    const dbUrl = new URL(pg.url);
    dbUrl.pathname = '/bench_indexing';

    const s3 = new S3Client({
      endpoint: s3srv.url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { ...KEYS },
    });
    const bucket = 'bench-corpus';
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const files = fs.readdirSync(CORPUS).filter((f) => f.endsWith('.pdf'));
    for (const f of files)
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `dev/${f}`,
          Body: fs.readFileSync(path.join(CORPUS, f)),
        }),
      );
    // the warm-up indexes the smallest file only (a full warm-up run costs minutes with the model)
    const smallest = [...files].sort(
      (a, b) => fs.statSync(path.join(CORPUS, a)).size - fs.statSync(path.join(CORPUS, b)).size,
    )[0];
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `warm/${smallest}`,
        Body: fs.readFileSync(path.join(CORPUS, smallest)),
      }),
    );
    s3.destroy();
    const popplerPages = (await Promise.all(files.map((f) => pdfPages(path.join(CORPUS, f))))).reduce(
      (a, b) => a + b,
      0,
    );
    log(`uploaded ${files.length} PDFs`);

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-'));
    const cfg = loadConfig({
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      LOG_FILE: path.join(dataDir, 'bench.log'),
      DATA_DIR: dataDir,
      APP_SECRET: 'bench-secret-0123456789abcdef0123456789abcdef',
      DATABASE_URL: dbUrl.toString(),
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `bench-${randomUUID().slice(0, 8)}`,
      ELASTICSEARCH_URL: esUrl,
      S3_ENDPOINT: s3srv.url,
      S3_FORCE_PATH_STYLE: 'true',
      INDEXING_CONCURRENCY: String(CONCURRENCY),
      METRICS_ENABLED: 'false',
      ...productEmbedderEnv(),
    });
    const app = await startWorker(cfg);
    started.unshift({ stop: () => app.close() });
    const startIndexing = app.get(StartIndexing, { strict: false });
    const runStore = app.get(RunStore, { strict: false });
    const docset = app.get(DocsetPipeline, { strict: false });
    const document = app.get(DocumentPipeline, { strict: false });
    const cipher = app.get(SourceCredentialsCipher, { strict: false });
    const embedder = app.get<Embedder>(EMBEDDER, { strict: false });
    const onnx = embedder instanceof OnnxEmbedder ? embedder : undefined;
    log(
      `embedder ${embedder.modelName}${onnx ? ` (${onnx.precision}, batch ${onnx.batchSize}, ${LOCAL_EMBEDDER_SESSIONS} x ${LOCAL_EMBEDDER_THREADS} threads)` : ''}; ` +
        `${files.length} PDFs, ${popplerPages} pages (pdfinfo)`,
    );
    /** Runs `fn` and adds what the embedder did meanwhile. */
    const withEmbedStats = async (fn: () => Promise<Measure>): Promise<Measure> => {
      const s0 = onnx?.stats();
      const m = await fn();
      m.loadAverage = Number(os.loadavg()[0].toFixed(1));
      if (onnx && s0) {
        const s = onnx.stats();
        m.embedChunks = s.texts - s0.texts;
        m.embedSeconds = Number(((s.tokenizeMs + s.inferMs - s0.tokenizeMs - s0.inferMs) / 1000).toFixed(2));
        m.embedChunksPerSecond = Number(
          ((m.embedChunks * LOCAL_EMBEDDER_SESSIONS) / m.embedSeconds).toFixed(1),
        );
      }
      return m;
    };

    /** pdftotext on every file, CONCURRENCY at a time, text to a pipe (read, then dropped). */
    async function pdftotext(round: number): Promise<Measure> {
      const queue = [...files];
      const t0 = performance.now();
      let chars = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let f = queue.shift(); f; f = queue.shift())
            chars += (await execFileP('pdftotext', ['-enc', 'UTF-8', path.join(CORPUS, f), '-'])).length;
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      if (chars < 1000) throw new Error('pdftotext extracted no text');
      return {
        ...measure('pdftotext', round, seconds, { documents: files.length, pages: popplerPages, chunks: 0 }),
        loadAverage: Number(os.loadavg()[0].toFixed(1)),
      };
    }

    const db = new PgClient({ connectionString: cfg.database.url });
    await db.connect();
    const { rows } = await db.query(`INSERT INTO accounts (name) VALUES ('bench') RETURNING id`);
    const accountId = Number(rows[0].id);
    const credentials = { ...KEYS, bucket, prefix: 'dev/' };

    const totals = async (docSetName: string) => {
      const r = await db.query(
        `SELECT count(*)::int AS documents, coalesce(sum(page_count), 0)::int AS pages,
                coalesce(sum(chunk_count), 0)::int AS chunks, count(*) FILTER (WHERE status <> 'COMPLETE')::int AS bad
           FROM documents WHERE account_id = $1 AND docset_name = $2`,
        [accountId, docSetName],
      );
      const t = r.rows[0];
      if (t.bad > 0 || t.documents !== files.length)
        throw new Error(`${docSetName}: not every document COMPLETE`);
      return { documents: t.documents as number, pages: t.pages as number, chunks: t.chunks as number };
    };
    const measure = (
      p: Measure['path'],
      round: number,
      seconds: number,
      t: { documents: number; pages: number; chunks: number },
    ): Measure => ({
      path: p,
      round,
      seconds: Number(seconds.toFixed(2)),
      ...t,
      pagesPerSecond: Number((t.pages / seconds).toFixed(1)),
      documentsPerSecond: Number((t.documents / seconds).toFixed(2)),
    });

    async function viaTemporal(round: number, warmUp = false): Promise<Measure> {
      const docSetName = warmUp ? 'warm-up' : `temporal-${round}`;
      const t0 = performance.now();
      const r = await startIndexing.start(accountId, {
        docSetName,
        sourceType: 'S3',
        credentials: warmUp ? { ...credentials, prefix: 'warm/' } : credentials,
        forceReindex: false,
        async: false,
      });
      const seconds = (performance.now() - t0) / 1000;
      if (!('status' in r) || r.status !== 'COMPLETED') throw new Error(`temporal run ${JSON.stringify(r)}`);
      if (warmUp) return measure('temporal', round, seconds, { documents: 1, pages: 0, chunks: 0 });
      return measure('temporal', round, seconds, await totals(docSetName));
    }

    async function direct(round: number): Promise<Measure> {
      const docSetName = `direct-${round}`;
      const runId = randomUUID();
      const t0 = performance.now();
      await runStore.insertRun({
        id: runId,
        accountId,
        docSetName,
        workflowId: `direct/${runId}`,
        sourceType: 'S3',
        options: {
          kind: 'sync',
          fileTypes: ['pdf', 'docx', 'txt', 'md', 'csv', 'html'],
          forceReindex: false,
          scope: `s3://${bucket}/dev/`,
        },
        credentialsEnc: cipher.encrypt(credentials, runId),
        accountName: null,
        summaryModel: null,
      });
      let token: string | null = null;
      do token = (await docset.listPage(runId, token)).nextPageToken;
      while (token);
      await docset.plan(runId);
      await docset.removeGone(runId);
      const queue = await docset.nextDocuments(runId, null, 1000);
      let extractMs = 0;
      let indexMs = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let d = queue.shift(); d; d = queue.shift()) {
            const a = performance.now();
            await document.extract(d.id, runId);
            const b = performance.now();
            const r = await document.indexChunks(d.id, runId);
            indexMs += performance.now() - b;
            extractMs += b - a;
            await document.complete(d.id, runId, r?.chunkCount ?? 0);
          }
        }),
      );
      await docset.finish(runId, 'COMPLETED', null);
      const seconds = (performance.now() - t0) / 1000;
      return {
        ...measure('direct', round, seconds, await totals(docSetName)),
        extractSeconds: Number((extractMs / 1000).toFixed(2)),
        indexSeconds: Number((indexMs / 1000).toFixed(2)),
      };
    }

    // Warm-up: worker bundle, extraction threads, index creation, the model's first batch.
    log(`warm-up run on ${smallest} (not measured)`);
    await viaTemporal(0, true);
    const loadStart = os.loadavg().map((x) => Number(x.toFixed(1)));
    const results: Measure[] = [];
    const runs: Array<(round: number) => Promise<Measure>> = [
      pdftotext,
      ...PATHS.map(
        (p) => (round: number) => withEmbedStats(() => (p === 'temporal' ? viaTemporal : direct)(round)),
      ),
    ];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const run of runs) {
        const m = await run(round);
        log(
          `${m.path} round ${round}: ${m.seconds} s, ${m.pagesPerSecond} pages/s, ${m.documentsPerSecond} docs/s` +
            (m.embedChunksPerSecond
              ? `, embedding ${m.embedChunks} chunks at ${m.embedChunksPerSecond}/s`
              : '') +
            ` (load ${m.loadAverage})`,
        );
        results.push(m);
      }
    }
    await db.end();

    const best = (p: Measure['path']) =>
      results.filter((r) => r.path === p).sort((a, b) => a.seconds - b.seconds)[0];
    const t = best(PATHS[0]);
    const d = PATHS.includes('direct') ? best('direct') : undefined;
    const x = best('pdftotext');
    const ratio = d && PATHS.includes('temporal') ? Number((t.seconds / d.seconds).toFixed(2)) : null;
    // indexing time over pdftotext time, per round (the two ran back to back) and best to best
    const roundRatios = results
      .filter((r) => r.path === PATHS[0])
      .map((r) => {
        const p = results.find((q) => q.path === 'pdftotext' && q.round === r.round)!;
        return Number((r.seconds / p.seconds).toFixed(2));
      });
    const pdftotextRatio = Number((t.seconds / x.seconds).toFixed(2));
    const out = {
      date: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model,
        memoryGb: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
      },
      loadAverage: { start: loadStart, end: os.loadavg().map((v) => Number(v.toFixed(1))) },
      engine: ENGINE,
      concurrency: CONCURRENCY,
      embedder: {
        model: embedder.modelName,
        precision: onnx?.precision ?? null,
        batchSize: onnx?.batchSize ?? null,
        sessions: onnx ? LOCAL_EMBEDDER_SESSIONS : null,
        threads: onnx ? LOCAL_EMBEDDER_THREADS : null,
      },
      corpus: { documents: t.documents, pages: t.pages, popplerPages, chunks: t.chunks },
      results,
      best: { [PATHS[0]]: t, ...(d ? { direct: d } : {}), pdftotext: x },
      orchestrationOverheadRatio: ratio,
      /** Indexing (first path in BENCH_PATHS) time over pdftotext time: best/best and per round. */
      pdftotextRatio,
      pdftotextRoundRatios: roundRatios,
    };
    const outFile = process.env.BENCH_OUT ?? path.join(ROOT, 'bench/indexing/results.json');
    fs.writeFileSync(outFile, `${JSON.stringify(out, null, 2)}\n`);
    console.log(
      `\n## Indexing benchmark (${ENGINE}, ${CONCURRENCY} documents at a time, best of ${ROUNDS})\n`,
    );
    const label = {
      temporal: 'Temporal pipeline',
      direct: 'direct, one process',
      pdftotext: 'pdftotext (poppler)',
    };
    console.log('| path | seconds | pages/s | documents/s | embedding chunks/s |');
    console.log('|---|---|---|---|---|');
    for (const m of [t, ...(d && d !== t ? [d] : []), x])
      console.log(
        `| ${label[m.path]} | ${m.seconds} | ${m.pagesPerSecond} | ${m.documentsPerSecond} | ${m.embedChunksPerSecond ?? '-'} |`,
      );
    console.log(
      `\nEmbedder ${embedder.modelName}. Indexing / pdftotext: ${pdftotextRatio}x best to best, ` +
        `${roundRatios.join(', ')} per round.`,
    );
    if (ratio !== null) console.log(`Orchestration overhead: ${ratio}x (Temporal time / direct time).`);
    if (d)
      console.log(
        `Direct path, summed over documents: extraction ${d.extractSeconds} s, chunk+embed+upsert ${d.indexSeconds} s.`,
      );
  } finally {
    for (const s of started) await s.stop().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
