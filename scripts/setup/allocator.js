// Which malloc the product runs on: jemalloc where it is installed, else the system's (no setting:
// the benchmark chose it, docs/adr/0035-jemalloc-under-npm-start.md). The embedded search engine
// allocates and frees multi-MiB buffers on many threads; under glibc's allocator the process keeps
// growing through long indexing runs, under jemalloc it stays flat and maintenance runs faster
// (docs/benchmarks/sharepoint.md). An allocator is chosen when a process starts
// (LD_PRELOAD), so `npm start` runs the product as a child process when jemalloc is to be used,
// passes signals on to it and exits with its exit code.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');

/** Where Debian, Ubuntu, Fedora and source builds put the library. */
const JEMALLOC_PATHS = [
  '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2',
  '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2',
  '/usr/lib64/libjemalloc.so.2',
  '/usr/lib/libjemalloc.so.2',
  '/usr/local/lib/libjemalloc.so.2',
];

/**
 * Freed pages go back to the system within a second, by jemalloc's own thread, instead of when a
 * later allocation in the same arena happens to purge them.
 */
const DEFAULT_MALLOC_CONF = 'background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0';

/** Set in the product's environment by the parent `npm start`. */
const SUPERVISED = 'DOCQA_SUPERVISED';

/**
 * What to run the product on. `{ allocator, outcome }`, and `env` when the product is to run as a
 * child process with that environment.
 */
function planAllocator(env, exists = fs.existsSync) {
  if (/libjemalloc/.test(env.LD_PRELOAD || ''))
    return { allocator: 'jemalloc', outcome: 'jemalloc (already in LD_PRELOAD)' };
  const lib = JEMALLOC_PATHS.find((p) => exists(p));
  if (!lib) {
    return {
      allocator: 'system',
      outcome:
        'system malloc: libjemalloc.so.2 not found (install libjemalloc2 to keep memory flat through long indexing runs on the embedded engine)',
    };
  }
  return {
    allocator: 'jemalloc',
    outcome: `jemalloc (${lib})`,
    env: {
      ...env,
      LD_PRELOAD: [lib, env.LD_PRELOAD].filter(Boolean).join(':'),
      MALLOC_CONF: env.MALLOC_CONF || DEFAULT_MALLOC_CONF,
      [SUPERVISED]: '1',
    },
  };
}

/**
 * Runs `script` in a child node process with `env` and mirrors it: SIGINT, SIGTERM and SIGHUP are
 * passed on once each (the child has its own process group, so a terminal's Ctrl-C reaches it
 * through here only and a second Ctrl-C still means "stop at once"), and this process exits with
 * the child's code. An IPC channel lets the child notice this process going away, even by SIGKILL,
 * and stop itself (apps/api/src/standalone.ts).
 */
function runSupervised(script, env) {
  const child = spawn(process.execPath, [...process.execArgv, script], {
    env,
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on('error', (err) => {
    console.error(`DocQA cannot start: ${err.message}`);
    process.exit(1);
  });
  // a child ended by a signal exits as a shell reports it: 128 + the signal's number
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
}

module.exports = { DEFAULT_MALLOC_CONF, JEMALLOC_PATHS, SUPERVISED, planAllocator, runSupervised };
