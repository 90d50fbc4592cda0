import type { S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runReembed } from '../../apps/worker/src/reembed-command';
import { loadConfig } from '@docqa/common';
import {
  createEmbedder,
  DEFAULT_LOCAL_EMBEDDER,
  Embedder,
  EMBEDDER,
  LOCAL_EMBEDDER_MODELS,
  LocalHashingEmbedder,
  OnnxEmbedder,
} from '@docqa/embeddings';
import { ASK } from '../ask/support';
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

// The installers (plain CommonJS): the bge-small kind and the dispatcher the e2e setup calls.
const bgeKind = require('../../scripts/models/bge-small') as {
  MODEL_DIR: string;
  NAME: string;
  QUERY_PREFIX: string;
  status(): { installed: boolean };
};
const minilmKind = require('../../scripts/models/embedder') as { MODEL_DIR: string };
const { installModels } = require('../../scripts/models') as {
  installModels(kinds: string[], o?: { log?: (l: string) => void }): Promise<void>;
};

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

describe('local embedder: bge-small-en-v1.5 from Maven Central (LOCAL_EMBEDDER=bge-small)', () => {
  let embedder: OnnxEmbedder;
  const setup: string[] = [];

  beforeAll(async () => {
    // from the cache the e2e setup filled: nothing is downloaded again
    await installModels(['bge-small'], { log: (l) => setup.push(l) });
    embedder = await OnnxEmbedder.load({ dir: bgeKind.MODEL_DIR, precision: 'auto', threads: 2 });
  }, 600_000);
  afterAll(() => embedder?.close());

  it('is installed once, with the pinned graphs, and a second install is a no-op', () => {
    expect(bgeKind.status()).toMatchObject({ installed: true });
    expect(setup.join('\n')).toMatch(/embedding model bge-small-en-v1\.5: (already installed|installed)/);
    expect(embedder.manifest).toMatchObject({ name: 'bge-small-en-v1.5', dimensions: 384, pooling: 'cls' });
    expect(embedder.modelName).toMatch(/^bge-small-en-v1\.5(-int8)?$/);
  });

  it('pools the [CLS] token of the published graph, L2-normalised', async () => {
    // an independent path, in a plain Node process (onnxruntime's tensors and Jest's sandbox do not
    // mix): the tokenizer and the graph by hand, the raw hidden states of every token
    const text = 'The harbour master posts the tide tables at dawn.';
    const script = `
      const fs = require('node:fs'), path = require('node:path');
      const ort = require(${JSON.stringify(require.resolve('onnxruntime-node'))});
      const { Tokenizer } = require(${JSON.stringify(require.resolve('@huggingface/tokenizers'))});
      const [dir, file, text] = process.argv.slice(1);
      const read = (f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
      const ids = new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json')).encode(text).ids;
      const t = (xs) => new ort.Tensor('int64', BigInt64Array.from(xs.map(BigInt)), [1, xs.length]);
      ort.InferenceSession.create(path.join(dir, file)).then(async (s) => {
        const out = await s.run({ input_ids: t(ids), attention_mask: t(ids.map(() => 1)), token_type_ids: t(ids.map(() => 0)) });
        process.stdout.write(JSON.stringify({ tokens: ids.length, hidden: Array.from(out.last_hidden_state.data) }));
      });`;
    const { tokens, hidden } = JSON.parse(
      execFileSync(process.execPath, ['-e', script, bgeKind.MODEL_DIR, embedder.modelFile, text], {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      }),
    ) as { tokens: number; hidden: number[] };
    const unit = (x: number[]) => x.map((v) => v / Math.sqrt(dot(x, x)));
    const cls = unit(hidden.slice(0, 384));
    const mean = unit(
      Array.from({ length: 384 }, (_, d) => {
        let s = 0;
        for (let k = 0; k < tokens; k++) s += hidden[k * 384 + d];
        return s;
      }),
    );
    const [v] = await embedder.embedDocuments([text]);
    expect(dot(v, v)).toBeCloseTo(1, 5);
    expect(dot(v, cls)).toBeGreaterThan(0.99999);
    // not mean pooling: the mean of the token states is another vector
    expect(dot(v, mean)).toBeLessThan(0.99);
  });

  it("embeds a query with BAAI's retrieval instruction and a passage without it", async () => {
    expect(embedder.queryPrefix).toBe('Represent this sentence for searching relevant passages: ');
    const q = 'when is high tide at the port';
    const query = await embedder.embedQuery(q);
    // one text per call, as a query is embedded (int8 quantises each batch with its own scale)
    const [withPrefix] = await embedder.embedDocuments([`${bgeKind.QUERY_PREFIX}${q}`]);
    const [bare] = await embedder.embedDocuments([q]);
    expect(dot(query, withPrefix)).toBeGreaterThan(0.9999);
    expect(dot(query, bare)).toBeLessThan(0.99);
  });

  it('scores a paraphrase pair above an unrelated pair, and a question nearest its answer', async () => {
    const [cat, kitten, erlang, tide, budget] = await embedder.embedDocuments([
      'A cat is sleeping on the sofa.',
      'A kitten naps on the couch.',
      'Mnesia transactions replicate tables across Erlang nodes.',
      'The harbour master posts the tide tables at dawn. High water today is at 14:20.',
      'The finance team approved the travel budget for the conference in Lisbon.',
    ]);
    expect(dot(cat, kitten)).toBeGreaterThan(dot(cat, erlang) + 0.3);
    const q = await embedder.embedQuery('When is high tide at the port?');
    expect(dot(q, tide)).toBeGreaterThan(dot(q, budget) + 0.1);
    expect(dot(q, tide)).toBeGreaterThan(dot(q, erlang) + 0.1);
  });

  describe('selection by LOCAL_EMBEDDER', () => {
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-embedder-cache-'));
    const cfg = (env: Record<string, string>) =>
      loadConfig({ NODE_ENV: 'test', DATA_DIR: cacheDir, DOCQA_CACHE_DIR: cacheDir, ...env });
    const link = (model: keyof typeof LOCAL_EMBEDDER_MODELS, dir: string) => {
      fs.mkdirSync(path.join(cacheDir, 'models'), { recursive: true });
      fs.symlinkSync(dir, path.join(cacheDir, 'models', LOCAL_EMBEDDER_MODELS[model].name));
    };
    afterAll(() => fs.rmSync(cacheDir, { recursive: true, force: true }));

    const using = async (env: Record<string, string>, check: (e: Embedder) => void) => {
      const e = await createEmbedder(cfg(env));
      try {
        check(e);
      } finally {
        await e.close?.();
      }
    };

    it('auto: the default model, else the other installed one, else hashing with the hint', async () => {
      const other = DEFAULT_LOCAL_EMBEDDER === 'bge-small' ? 'minilm' : 'bge-small';
      const dirs = { minilm: minilmKind.MODEL_DIR, 'bge-small': bgeKind.MODEL_DIR };
      await using({ LOCAL_EMBEDDER: 'auto' }, (e) => {
        expect(e).toBeInstanceOf(LocalHashingEmbedder);
        expect(e.warning).toContain(
          `npm run models:install -- ${LOCAL_EMBEDDER_MODELS[DEFAULT_LOCAL_EMBEDDER].installKind}`,
        );
      });
      link(other, dirs[other]);
      await using({ LOCAL_EMBEDDER: 'auto', LOCAL_EMBEDDER_PRECISION: 'fp32' }, (e) =>
        expect(e.modelName).toBe(LOCAL_EMBEDDER_MODELS[other].name),
      );
      link(DEFAULT_LOCAL_EMBEDDER, dirs[DEFAULT_LOCAL_EMBEDDER]);
      await using({ LOCAL_EMBEDDER: 'auto', LOCAL_EMBEDDER_PRECISION: 'fp32' }, (e) =>
        expect(e.modelName).toBe(LOCAL_EMBEDDER_MODELS[DEFAULT_LOCAL_EMBEDDER].name),
      );
      await using({ LOCAL_EMBEDDER: 'bge-small', LOCAL_EMBEDDER_PRECISION: 'int8' }, (e) =>
        expect(e.modelName).toBe('bge-small-en-v1.5-int8'),
      );
    });

    it('a named model refuses to start without it, or with another model in LOCAL_EMBEDDER_MODEL_DIR', async () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-no-model-'));
      try {
        await expect(
          createEmbedder(cfg({ LOCAL_EMBEDDER: 'bge-small', LOCAL_EMBEDDER_MODEL_DIR: empty })),
        ).rejects.toThrow(/LOCAL_EMBEDDER=bge-small: .*not installed.*npm run models:install -- bge-small/);
      } finally {
        fs.rmSync(empty, { recursive: true, force: true });
      }
      await expect(
        createEmbedder(cfg({ LOCAL_EMBEDDER: 'bge-small', LOCAL_EMBEDDER_MODEL_DIR: minilmKind.MODEL_DIR })),
      ).rejects.toThrow(/holds all-MiniLM-L6-v2, not bge-small-en-v1\.5/);
    });
  });
});

/**
 * A docset embedded with MiniLM keeps working across the switch: after the restart with
 * LOCAL_EMBEDDER=bge-small it is outside the new index version until `reembed` writes it there from
 * its stored pages; then /ask answers from it again.
 */
describe('switching a docset from MiniLM to bge-small with reembed (embedded engine)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bge-reembed-'));
  const MINILM = 'all-MiniLM-L6-v2:384';
  const BGE = 'bge-small-en-v1.5:384';
  let databaseUrl: string | undefined;
  let app: TestApp | undefined;
  let client: S3Client;
  let account: { token: string; accountId: number };

  const start = (embedder: 'minilm' | 'bge-small' | 'auto') =>
    startTestApp({
      worker: true,
      embeddedSearch: true,
      env: {
        LOCAL_EMBEDDER: embedder,
        // fp32 on every CPU, so the space names are exact (int8 is its own space)
        LOCAL_EMBEDDER_PRECISION: 'fp32',
        DATA_DIR: dataDir,
        SEARCH_INDEX_PREFIX: uniqueName('t-bge'),
        S3_ENDPOINT: infra().s3Endpoint,
        S3_FORCE_PATH_STYLE: 'true',
        S3_REGION: 'us-east-1',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      },
    });
  const spaces = async () => {
    const db = await dbOf(app!);
    try {
      const { rows } = await db.query(
        `SELECT embedding_space FROM documents WHERE account_id = $1 AND docset_name = 'harbour' AND status = 'COMPLETE'`,
        [account.accountId],
      );
      return rows.map((r) => r.embedding_space as string);
    } finally {
      await db.end();
    }
  };
  const ask = (question: string) =>
    app!.client.post(ASK, { question, docSetNames: ['harbour'] }, { token: account.token });
  const vectorTop = async (question: string) => {
    const e = app!.api.app.get<Embedder>(EMBEDDER);
    const hits = await searchIndexOf(app!).search({
      accountId: account.accountId,
      docSetNames: ['harbour'],
      text: question,
      vector: await e.embedQuery(question),
      limit: 3,
      minimumSimilarityScore: 0,
      mode: 'vector',
    });
    return hits.map((h) => h.chunk.fileName);
  };

  beforeAll(async () => {
    app = await start('minilm');
    databaseUrl = app.cfg.database.url;
    client = s3();
    const bucket = await createBucket(client, 'bge');
    await putMany(client, bucket, [
      {
        key: 'harbour/tides.txt',
        body: 'The harbour master posts the tide tables at dawn. High water today is at 14:20 and low water at 20:35.',
      },
      {
        key: 'harbour/budget.md',
        body: '# Travel\n\nThe finance team approved the travel budget for the conference in Lisbon.',
      },
      { key: 'harbour/garden.txt', body: 'Water the tomato plants every evening during the summer heat.' },
    ]);
    account = await newAccount(app);
    await indexAndWait(app, account.token, {
      docSetName: 'harbour',
      credentials: s3Credentials(bucket, 'harbour/'),
    });
  }, 300_000);

  afterAll(async () => {
    client?.destroy();
    await app?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers with MiniLM, is outside the bge-small space after the switch, and answers again after reembed', async () => {
    expect(await spaces()).toEqual([MINILM, MINILM, MINILM]);
    const before = await ask('When is high water today?');
    expect(before.status).toBe(200);
    expect(before.body.citations[0]).toMatchObject({ fileName: 'tides.txt' });

    // LOCAL_EMBEDDER=auto on an install whose documents MiniLM embedded keeps MiniLM, whatever the
    // default model is, so an upgrade that changes the default leaves the index searchable
    await app!.close();
    app = await start('auto');
    expect(app.api.app.get<Embedder>(EMBEDDER).modelName).toBe('all-MiniLM-L6-v2');
    expect((await ask('When is high water today?')).body.citations[0]).toMatchObject({
      fileName: 'tides.txt',
    });
    expect(app.logs()).not.toContain('were embedded by another model');
    if (DEFAULT_LOCAL_EMBEDDER !== 'minilm')
      expect(app.logs()).toContain(
        'LOCAL_EMBEDDER=auto keeps all-MiniLM-L6-v2: 3 documents are embedded by it. The default model is now',
      );

    await app!.close();
    app = await start('bge-small');
    expect(await searchIndexOf(app!).stats(account.accountId)).toMatchObject({
      embeddingModel: 'bge-small-en-v1.5',
      dimensions: 384,
      chunks: 0,
    });
    expect(app!.logs()).toContain(
      '3 documents in 1 docsets were embedded by another model and are not in the current search index (bge-small-en-v1.5:384)',
    );

    const cfg = app!.cfg;
    await app!.close(); // the documented way: the command runs with the API stopped
    app = undefined;
    const r = await runReembed(cfg, { accountId: account.accountId, docSetName: 'harbour' });
    expect(r).toMatchObject({ space: BGE, documents: 3, skippedDocsets: [] });
    app = await start('bge-small');
    expect(await spaces()).toEqual([BGE, BGE, BGE]);
    expect(app.logs()).not.toContain('were embedded by another model');
    await app.close();
    // once re-embedded, auto follows the documents to bge-small
    app = await start('auto');
    expect(app.api.app.get<Embedder>(EMBEDDER).modelName).toBe('bge-small-en-v1.5');
    expect(app.logs()).not.toContain('were embedded by another model');

    // the new vectors rank the tide table first for a paraphrase with no shared content word
    expect((await vectorTop('When is high tide at the port?'))[0]).toBe('tides.txt');
    const after = await ask('When is high water today?');
    expect(after.status).toBe(200);
    expect(after.body.answer).toContain('14:20');
    expect(after.body.citations[0]).toMatchObject({ fileName: 'tides.txt' });
  });
});
