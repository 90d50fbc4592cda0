// Issue #13: Ctrl-C while indexing is busy (PDF threads parsing, the embedding model inferring,
// activities running) stops `npm start` cleanly within 30 s. Before the worker was drained first
// and the model's thread allowed to finish its inference, the process died of SIGABRT
// ("terminate called after throwing an instance of 'Napi::Error'").
import { TEMPORAL_UI_PORT_OFFSET } from '@docqa/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { infra, sharedDir } from '../support/infra';
import { Product, registerAccount, startProduct } from '../support/product';
import { createBucket, paths, putMany, s3, S3_KEYS } from './support';
const { freePortPair } = require('../infra/util');

describe('Ctrl-C while indexing (issue #13)', () => {
  let product: Product | undefined;
  let dataDir: string;

  afterAll(async () => {
    await product?.stop('SIGKILL');
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 0 within 30 s while activities are running', async () => {
    const corpus = sharedDir('corpus', 'dev');
    const client = s3();
    const bucket = await createBucket(client, 'ctrl-c');
    await putMany(
      client,
      bucket,
      fs
        .readdirSync(corpus)
        .filter((f) => f.endsWith('.pdf'))
        .map((f) => ({ key: f, body: fs.readFileSync(path.join(corpus, f)) })),
      4,
    );
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-ctrl-c-'));
    product = await startProduct({
      DATA_DIR: dataDir,
      LOG_FILE: path.join(dataDir, 'app.log'),
      HTTPS_PORT: '0',
      HTTP_PORT: '0',
      METRICS_PORT: '0',
      BIND_HOST: '127.0.0.1',
      TEMPORAL_CLI_PATH: infra().temporalCli,
      TEMPORAL_DEV_PORT: String(await freePortPair(TEMPORAL_UI_PORT_OFFSET)),
      S3_ENDPOINT: infra().s3Endpoint,
      S3_FORCE_PATH_STYLE: 'true',
    });
    const c = product.client;
    const token = await registerAccount(c, 'ctrl-c');
    const res = await c.post(
      paths.index,
      { docSetName: 'dev', credentials: { ...S3_KEYS, bucket } },
      { token },
    );
    expect(res.status).toBe(202);
    // Busy: documents are being extracted and embedded.
    const deadline = Date.now() + 120_000;
    for (;;) {
      const p = (await c.get(paths.progress('dev'), { token })).body;
      if (p.indexingCount > 0) break;
      if (Date.now() > deadline) throw new Error(`indexing never started: ${JSON.stringify(p)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await new Promise((r) => setTimeout(r, 5000));
    const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      product!.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const stopped = await product.stop('SIGINT');
    expect(await exit).toEqual({ code: 0, signal: null });
    expect(stopped.ms).toBeLessThan(30_000);
    expect(product.output()).not.toMatch(/terminate called|Napi::Error/);
    product = undefined;
  }, 600_000);
});
