// Shared helpers of test/infra: free ports, waiting, cache paths. Plain CommonJS so the scripts
// run with `node` before anything is built.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const CACHE_DIR = process.env.DOCQA_CACHE_DIR || path.join(os.homedir(), '.cache', 'docqa');

/** Whether nothing listens on `port` on any address (the product binds 0.0.0.0). */
function canListen(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: '0.0.0.0', exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** The kernel's ephemeral port range (outgoing connections take their local ports from it). */
function ephemeralRange() {
  try {
    const [low, high] = fs
      .readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (low > 0 && high >= low) return [low, high];
  } catch {
    /* not Linux: the usual default */
  }
  return [32768, 60999];
}

const handedOut = new Set();

/**
 * A port for a server the caller starts later (another process, often seconds later). Chosen below
 * the ephemeral range: a port from listen(0) comes from that range, and in the meantime the kernel
 * can give it to some process's outgoing connection, after which the server's bind fails
 * (EADDRINUSE; seen once in CI when npm start's port was taken). Never the same port twice in one
 * process, since none of them is bound until the caller starts its server.
 */
async function freePort() {
  const [ephemeralLow] = ephemeralRange();
  const low = 20000;
  const high = ephemeralLow - 1;
  for (let attempt = 0; high - low > 1000 && attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  // No room below the ephemeral range: the kernel's choice (the race above is then possible).
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function waitForPort(port, host = '127.0.0.1', timeoutMs = 120000) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const sock = net.connect(port, host);
      sock.once('connect', () => {
        sock.destroy();
        resolve();
      });
      sock.once('error', () => {
        sock.destroy();
        if (Date.now() > deadline) reject(new Error(`${host}:${port} did not open within ${timeoutMs} ms`));
        else setTimeout(attempt, 250);
      });
    };
    attempt();
  });
}

function stopChild(child, graceMs = 15000) {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
  });
}

function mkTemp(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Installs a Debian package (needs root): refreshes the package lists first, as a fresh machine has none. */
function aptInstall(pkg) {
  console.log(`[infra] installing Debian ${pkg}...`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', pkg], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/**
 * A free port for the embedded Temporal dev server whose Web UI port, `offset` above it (the
 * product's TEMPORAL_UI_PORT_OFFSET), is free too. Resolves with the dev server's port.
 */
async function freePortPair(offset) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = await freePort();
    // both below the ephemeral range, for the reason freePort gives
    if (port + offset >= ephemeralRange()[0] || handedOut.has(port + offset)) continue;
    if (await canListen(port + offset)) {
      handedOut.add(port + offset);
      return port;
    }
  }
  throw new Error(`no free port with a free port ${offset} above it`);
}

module.exports = { CACHE_DIR, aptInstall, freePort, freePortPair, waitForPort, stopChild, mkTemp };
