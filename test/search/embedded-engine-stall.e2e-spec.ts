// Issue #13, root cause: on a host whose LanceDB CPU pool has a single thread (lance sizes it
// `CPUs - LANCE_IO_CORE_RESERVATION`, at least 1, so every machine with 3 CPUs or fewer), index
// maintenance deadlocked once the full-text index outgrew one posting-list batch: the FTS builder's
// producer parks the pool's only thread on a full channel while the writer that would drain it waits
// for a thread of the same pool. Every later write (behind the adapter's write lock) and every search
// (which decodes on that pool) then hung for good. The workload runs in a child process because the
// engine reads its settings from the real process environment, which Jest's sandbox does not expose,
// and because a wedged engine must not take the test runner with it.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

interface LoadResult {
  code: number | null;
  lines: Array<Record<string, unknown>>;
  output: string;
}

function runLoad(env: Record<string, string>, timeoutMs: number): Promise<LoadResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-lance-load-'));
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('LANCE_')) childEnv[k] = v;
  const child = spawn(
    process.execPath,
    [
      '-r',
      path.join(ROOT, 'test/support/ts-register.js'),
      path.join(__dirname, 'support/embedded-write-load.ts'),
      dir,
    ],
    { cwd: ROOT, env: { ...childEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(killer);
      fs.rmSync(dir, { recursive: true, force: true });
      const lines = output
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code, lines, output });
    });
  });
}

describe('embedded engine under the indexing write pattern (issue #13)', () => {
  it('keeps answering writes, maintenance and searches past the full-text index size that wedged a one-thread CPU pool', async () => {
    // Lance's own sizing gives one compute thread here, whatever the machine: what every host with
    // three CPUs or fewer gets by default.
    const r = await runLoad(
      {
        LANCE_IO_CORE_RESERVATION: String(os.cpus().length),
        LOAD_ROUNDS: '30',
        LOAD_CALL_DEADLINE_MS: '45000',
      },
      200_000,
    );
    const rounds = r.lines.filter((l) => typeof l.round === 'number');
    expect({ code: r.code, stalled: r.lines.find((l) => l.stalled)?.stalled }).toEqual({
      code: 0,
      stalled: undefined,
    });
    expect(rounds).toHaveLength(30);
    // Enough rows to cross the size where the deadlock appeared (round 19, about 7,000 rows).
    expect(rounds[29].rows).toBeGreaterThan(9000);
    expect(rounds.every((l) => l.hits === 5)).toBe(true);
    expect(r.lines[r.lines.length - 1]).toEqual({ done: true });
  }, 240_000);
});
