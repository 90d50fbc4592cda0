import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TestClient } from './http';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The product as a user runs it: `npm start` (scripts/start.js, which builds when the sources are
 * newer than dist/) in a child process with its own environment. Tests of what only a real process
 * shows use it: the engine's native settings read from the environment, signals and exit within a
 * deadline, a wedged engine that must not take the test runner with it.
 */
export interface Product {
  /** `npm start`'s process. */
  child: ChildProcess;
  /**
   * The node process running the product: `npm start` itself, or its child where it runs the product
   * on jemalloc (scripts/setup/allocator.js). Its RSS is the product's.
   */
  pid: number;
  client: TestClient;
  baseUrl: string;
  caFile: string;
  /** Everything the process printed (stdout and stderr). */
  output(): string;
  /**
   * Sends `signal` to `npm start` (which passes it on) and resolves with the exit code and how long the
   * exit took; SIGKILL, sent or after `killAfterMs`, goes to the product's process too.
   */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<{ code: number | null; ms: number }>;
}

export async function startProduct(
  env: Record<string, string | undefined>,
  timeoutMs = 300_000,
  /** Options of the node process itself (e.g. `--cpu-prof`, which NODE_OPTIONS does not take). */
  nodeArgs: string[] = [],
): Promise<Product> {
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ PATH: process.env.PATH, HOME: process.env.HOME, ...env }))
    if (v !== undefined) childEnv[k] = v;
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'scripts/start.js')], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  while (!output.includes('DocQA is up')) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output.slice(-4000)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`npm start did not come up:\n${output.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const baseUrl = /API\s+(https:\/\/localhost:\d+)\/api\/v1/.exec(output)?.[1];
  const caFile = /CA file\s+(\S+)/.exec(output)?.[1];
  if (!baseUrl || !caFile) throw new Error(`could not read the addresses from:\n${output}`);
  const client = new TestClient(baseUrl, caFile);
  const pid = productPid(child.pid!);
  return {
    child,
    pid,
    client,
    baseUrl,
    caFile,
    output: () => output,
    async stop(signal = 'SIGTERM', killAfterMs = 60_000) {
      if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, ms: 0 };
      const t0 = Date.now();
      const kill = (sig: NodeJS.Signals) => {
        if (sig === 'SIGKILL' && pid !== child.pid) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        child.kill(sig);
      };
      const killer = setTimeout(() => kill('SIGKILL'), killAfterMs);
      kill(signal);
      const code = await exited;
      clearTimeout(killer);
      await client.close().catch(() => undefined);
      return { code, ms: Date.now() - t0 };
    },
  };
}

/** The child of `npm start` that runs the product (apps/api/src/standalone.ts), or `npm start` itself. */
export function productPid(startPid: number): number {
  let children: string[] = [];
  try {
    children = fs.readFileSync(`/proc/${startPid}/task/${startPid}/children`, 'utf8').trim().split(/\s+/);
  } catch {
    return startPid;
  }
  for (const c of children.filter(Boolean)) {
    try {
      if (fs.readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('standalone.js')) return Number(c);
    } catch {
      // exited meanwhile
    }
  }
  return startPid;
}

/** Registers a user (a fresh personal account) and returns its API token. */
export async function registerAccount(client: TestClient, prefix = 'user'): Promise<string> {
  const email = `${prefix}-${randomBytes(5).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const res = await client.post('/api/v1/users', {
    user: { email, password, password_confirmation: password, name: prefix },
  });
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${res.text}`);
  return res.body.user.api_tokens[0].token as string;
}
