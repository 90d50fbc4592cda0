import { Client as EsClient } from '@elastic/elasticsearch';
import type { S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runReembed } from '../../apps/worker/src/reembed-command';
import { Embedder, EMBEDDER } from '@docqa/embeddings';
import { EmbeddedSearchIndex, SearchIndex, versionedIndexName } from '@docqa/search';
import { deleteEsPrefix } from '../search/es-cleanup';
import { startTestApp, TestApp } from '../support/app';
import { infra, uniqueName } from '../support/infra';
import {
  createBucket,
  dbOf,
  indexAndWait,
  newAccount,
  putMany,
  s3,
  s3Credentials,
  searchIndexOf,
} from '../indexing/support';

const HASHING = 'docqa-local-hash-v1:768';
const MINILM = 'all-MiniLM-L6-v2:384';

const FILES = {
  manuals: [
    {
      key: 'manuals/harbour.txt',
      body: 'The harbour master posts the tide tables at dawn. High water today is at 14:20 and low water at 20:35.',
    },
    {
      key: 'manuals/budget.md',
      body: '# Travel\n\nThe finance team approved the travel budget for the conference in Lisbon.',
    },
  ],
  notes: [{ key: 'notes/garden.txt', body: 'Water the tomato plants every evening during the summer heat.' }],
};

/**
 * A change of embedder: documents indexed with the hashing embedder are not mixed into the MiniLM
 * index version; they are missing from it (and the app says so) until `npm run cli -- reembed`
 * writes them again from their stored pages; the old index version is kept for rollback.
 */
describe.each(['elasticsearch', 'embedded'] as const)('switching embedders (%s)', (engine) => {
  const prefix = uniqueName('docqa-test-reembed');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-reembed-'));
  let databaseUrl: string | undefined;
  let app: TestApp | undefined;
  let client: S3Client;
  let bucket: string;
  let account: { token: string; accountId: number };

  /** The product on the shared database, data dir and index prefix, with the given embedder. */
  const start = (embedder: 'hashing' | 'minilm') =>
    startTestApp({
      worker: true,
      embeddedSearch: engine === 'embedded',
      env: {
        LOCAL_EMBEDDER: embedder,
        // the fp32 graph on every CPU, so the space names below are exact (`auto` picks int8 where
        // the CPU has integer dot products: another space, tested in test/models/embedder)
        LOCAL_EMBEDDER_PRECISION: 'fp32',
        DATA_DIR: dataDir,
        SEARCH_INDEX_PREFIX: prefix,
        S3_ENDPOINT: infra().s3Endpoint,
        S3_FORCE_PATH_STYLE: 'true',
        S3_REGION: 'us-east-1',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      },
    });
  const restart = async (embedder: 'hashing' | 'minilm') => {
    await app?.close();
    app = await start(embedder);
    return app;
  };

  const spaces = async (docSetName: string) => {
    const db = await dbOf(app!);
    try {
      const { rows } = await db.query(
        `SELECT embedding_space FROM documents WHERE account_id = $1 AND docset_name = $2 AND status = 'COMPLETE'`,
        [account.accountId, docSetName],
      );
      return rows.map((r) => r.embedding_space as string | null);
    } finally {
      await db.end();
    }
  };
  const vectorSearch = async (question: string, docSetNames = ['manuals', 'notes']) => {
    const embedder = app!.api.app.get<Embedder>(EMBEDDER);
    return searchIndexOf(app!).search({
      accountId: account.accountId,
      docSetNames,
      text: question,
      vector: await embedder.embedQuery(question),
      limit: 5,
      minimumSimilarityScore: 0,
      mode: 'vector',
    });
  };
  const reembed = async (o: { docSetName?: string; all?: boolean } = {}) => {
    const cfg = app!.cfg;
    await app!.close(); // the documented way: the command runs with the API stopped
    app = undefined;
    try {
      return await runReembed(cfg, { accountId: account.accountId, ...o });
    } finally {
      app = await start('minilm');
    }
  };

  beforeAll(async () => {
    app = await start('hashing');
    databaseUrl = app.cfg.database.url;
    client = s3();
    bucket = await createBucket(client, 'reembed');
    await putMany(client, bucket, [...FILES.manuals, ...FILES.notes]);
    account = await newAccount(app);
    for (const docSetName of ['manuals', 'notes'] as const) {
      await indexAndWait(app, account.token, {
        docSetName,
        credentials: s3Credentials(bucket, `${docSetName}/`),
      });
    }
  }, 300_000);

  afterAll(async () => {
    client?.destroy();
    await app?.close();
    if (engine === 'elasticsearch') {
      const es = new EsClient({ node: infra().elasticsearchUrl });
      await deleteEsPrefix(es, prefix).finally(() => es.close());
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('records the space each indexed document was embedded in', async () => {
    expect(await spaces('manuals')).toEqual([HASHING, HASHING]);
    expect(await spaces('notes')).toEqual([HASHING]);
    expect((await searchIndexOf(app!).stats(account.accountId)).indexName).toContain(
      'docqa-local-hash-v1-768',
    );
  });

  it('after the switch, the new index version is empty, the old one is kept, and the app says what to run', async () => {
    const hashingChunks = (await searchIndexOf(app!).stats(account.accountId)).chunks;
    expect(hashingChunks).toBeGreaterThanOrEqual(3);
    await restart('minilm');
    const stats = await searchIndexOf(app!).stats(account.accountId);
    expect(stats).toMatchObject({ embeddingModel: 'all-MiniLM-L6-v2', dimensions: 384, chunks: 0 });
    expect(stats.indexName).toContain('all-minilm-l6-v2-384');
    // nothing of the old space is searched with the new model's vectors
    expect(await vectorSearch('When is high tide at the port?')).toEqual([]);
    expect(app!.logs()).toContain(
      '3 documents in 2 docsets were embedded by another model and are not in the current search index (all-MiniLM-L6-v2:384)',
    );
    expect(app!.logs()).toContain('npm run cli -- reembed');
    // the old index version still holds its chunks (rollback = switch back)
    expect(await oldIndexChunks()).toBe(hashingChunks);
  });

  it('reembed writes one docset from the stored pages, skips docsets with an open run, and resumes', async () => {
    const r = await reembed({ docSetName: 'manuals' });
    expect(r).toMatchObject({ space: MINILM, documents: 2, skippedDocsets: [], changedMeanwhile: 0 });
    expect(r.chunks).toBeGreaterThanOrEqual(2);
    expect(await spaces('manuals')).toEqual([MINILM, MINILM]);
    expect(await spaces('notes')).toEqual([HASHING]);
    expect((await searchIndexOf(app!).stats(account.accountId)).chunks).toBe(r.chunks);
    // a paraphrase with no shared content word finds the tide table through the semantic leg
    const hits = await vectorSearch('When is high tide at the port?');
    expect(hits[0]?.chunk.fileName).toBe('harbour.txt');
    expect(app!.logs()).toContain('1 documents in 1 docsets were embedded by another model');

    // a docset that is being indexed is left alone (its run writes the current space itself)
    const db = await dbOf(app!);
    const runId = randomUUID();
    try {
      await db.query(
        `INSERT INTO index_runs (id, account_id, docset_name, workflow_id, source_type, status, options)
         VALUES ($1, $2, 'notes', $3, 'S3', 'RUNNING', '{}')`,
        [runId, account.accountId, `test-${runId}`],
      );
    } finally {
      await db.end();
    }
    const busy = await reembed();
    expect(busy).toMatchObject({
      documents: 0,
      skippedDocsets: [{ accountId: account.accountId, docSetName: 'notes' }],
    });
    const db2 = await dbOf(app!);
    await db2.query(`DELETE FROM index_runs WHERE id = $1`, [runId]).finally(() => db2.end());

    const rest = await reembed();
    expect(rest).toMatchObject({ documents: 1, skippedDocsets: [] });
    expect(await spaces('notes')).toEqual([MINILM]);
    expect(app!.logs()).not.toContain('were embedded by another model');
    expect((await vectorSearch('how often should I water my vegetables', ['notes']))[0]?.chunk.fileName).toBe(
      'garden.txt',
    );
    // nothing left: a second run is a no-op; --all rewrites everything in place (same chunk ids)
    expect(await reembed()).toMatchObject({ documents: 0, chunks: 0 });
    const before = (await searchIndexOf(app!).stats(account.accountId)).chunks;
    expect(await reembed({ all: true })).toMatchObject({ documents: 3, chunks: before });
    expect((await searchIndexOf(app!).stats(account.accountId)).chunks).toBe(before);
  });

  /** Chunks of the account in the hashing-space index version, read beside the running app. */
  async function oldIndexChunks(): Promise<number> {
    const space = { modelName: 'docqa-local-hash-v1', dimensions: 768 };
    if (engine === 'elasticsearch') {
      const es = new EsClient({ node: infra().elasticsearchUrl });
      try {
        const r = await es.count({
          index: versionedIndexName(prefix, space),
          query: { term: { accountId: String(account.accountId) } },
        });
        return r.count;
      } finally {
        await es.close();
      }
    }
    const old: SearchIndex = new EmbeddedSearchIndex({ dir: path.join(dataDir, 'search'), space });
    try {
      return (await old.stats(account.accountId)).chunks;
    } finally {
      await old.close();
    }
  }
});

describe('npm run cli -- reembed (the operator command, in its own process)', () => {
  it('starts the embedded database of DATA_DIR and reports what it did', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-reembed-cli-'));
    try {
      const out = execFileSync(
        process.execPath,
        [path.resolve(__dirname, '../../scripts/cli.js'), 'reembed'],
        {
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            DATA_DIR: dataDir,
            LOCAL_EMBEDDER: 'hashing',
          },
          encoding: 'utf8',
          timeout: 120_000,
        },
      );
      expect(out).toMatch(
        /\[reembed\] done: 0 documents, 0 chunks re-embedded as docqa-local-hash-v1:768 into \S+ in [\d.]+ s/,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
