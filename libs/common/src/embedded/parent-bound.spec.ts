import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { parentBound } from './parent-bound';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

/** Starts `cmd` under a bash parent; returns the parent and the child's pid. */
async function underParent(cmd: { file: string; args: string[] }, command = 'sleep') {
  const parent = spawn('bash', ['-c', '"$@" & echo $!; wait', '--', cmd.file, ...cmd.args], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const pid = await new Promise<number>((resolve) =>
    parent.stdout!.once('data', (b: Buffer) => resolve(Number(String(b).trim()))),
  );
  // the forked shell has exec'd the wrapper and the wrapper the command
  await until(() => commandOf(pid) === command, 5000);
  return { parent, pid };
}

describe('parentBound', () => {
  it('runs the command itself: same argv after the wrapper, and the pid is the command', async () => {
    const cmd = parentBound('sleep', ['30']);
    expect(cmd.args.slice(-2)).toEqual(['sleep', '30']);
    const { parent, pid } = await underParent(cmd);
    try {
      expect(commandOf(pid)).toBe('sleep');
    } finally {
      process.kill(pid, 'SIGKILL');
      parent.kill('SIGKILL');
    }
  });

  it('ends the child when its parent is killed by a signal', async () => {
    const { parent, pid } = await underParent(parentBound('sleep', ['30']));
    expect(stateOf(pid)).not.toBe('Z');
    parent.kill('SIGKILL');
    const ended = await until(() => !alive(pid) || stateOf(pid) === 'Z', 5000);
    if (!ended) process.kill(pid, 'SIGKILL');
    expect(ended).toBe(true);
  });

  it('leaves an unwrapped child running when its parent is killed (what the wrapper guards against)', async () => {
    const { parent, pid } = await underParent({ file: 'sleep', args: ['30'] });
    expect(commandOf(pid)).toBe('sleep');
    parent.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    try {
      expect(alive(pid)).toBe(true);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });
});

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
  } catch {
    return '';
  }
}

function stateOf(pid: number): string {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return '';
  }
}
