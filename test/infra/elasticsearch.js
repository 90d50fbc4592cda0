// A real single-node Elasticsearch 8.x from Maven Central artifacts (test/infra/elasticsearch),
// cached under ~/.cache/docqa/es, on a free port with a throwaway data directory.
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { mkTemp, freePort, stopChild } = require('./util');

const DIR = path.join(__dirname, 'elasticsearch');

function ensureInstalled() {
  execFileSync('bash', [path.join(DIR, 'install.sh')], { stdio: 'inherit' });
}

async function waitForHttp(url, timeoutMs = 180000, exited = () => false) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited()) throw new Error(`Elasticsearch at ${url} exited before it was ready`);
    try {
      const res = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=5s`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline)
      throw new Error(`Elasticsearch at ${url} did not become ready in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Options (fault tests restart a private node): `port` reuses a given port, `dir` reuses the
 * directory of an earlier start (its indices are kept). Defaults: a free port, a fresh directory.
 * `stop({ keepData: true })` stops the node but keeps `dir`.
 */
async function startElasticsearch(opts = {}) {
  ensureInstalled();
  // A free port can be taken by another process before the node binds it: then a fresh one is tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (opts.port || attempt >= 3 || !/BindException|Address already in use/.test(err.message)) throw err;
      console.warn(`[docqa-es] port taken before Elasticsearch bound it; retrying on another (${attempt})`);
    }
  }
}

async function startOnce(opts) {
  const port = opts.port || (await freePort());
  const dir = opts.dir || mkTemp('docqa-es-');
  const logFd = fs.openSync(path.join(dir, 'es.log'), 'a');
  const child = spawn('bash', [path.join(DIR, 'start.sh'), String(port), path.join(dir, 'data')], {
    stdio: ['ignore', logFd, logFd],
    detached: true,
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(url, 180000, () => exited);
  } catch (err) {
    const log = fs.existsSync(path.join(dir, 'es.log'))
      ? fs.readFileSync(path.join(dir, 'es.log'), 'utf8').slice(-3000)
      : '';
    await stopChild(child);
    if (!opts.dir) fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`${err.message}${exited ? ' (process exited)' : ''}\n${log}`);
  }
  return {
    url,
    port,
    pid: child.pid,
    dir,
    async stop({ keepData = false } = {}) {
      await stopChild(child, 20000);
      if (!keepData) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { startElasticsearch, ensureInstalled };
