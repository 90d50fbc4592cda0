import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * Runs in a fresh Node process (the allocator's state is process-wide): frees a 16 MiB mapped block
 * (glibc then raises its mmap threshold, as it does under the search engine), fills 96 blocks of
 * 1 MiB from the heap, keeps one more above them so the heap's top cannot shrink, frees the 96,
 * and reports the RSS before and after releaseFreedNativeMemory (or none, for the comparison).
 */
const PROBE = `
  const koffi = require('koffi');
  const { releaseFreedNativeMemory } = require(${JSON.stringify(path.join(__dirname, 'native-allocator.ts'))});
  const libc = koffi.load('libc.so.6');
  const malloc = libc.func('void *malloc(size_t size)');
  const free = libc.func('void free(void *ptr)');
  const memset = libc.func('void *memset(void *s, int c, size_t n)');
  const rssMb = () => process.memoryUsage().rss / 2 ** 20;
  free(malloc(16 << 20));
  const blocks = Array.from({ length: 96 }, () => memset(malloc(1 << 20), 1, 1 << 20));
  const guard = memset(malloc(1 << 20), 1, 1 << 20);
  blocks.forEach((b) => free(b));
  const before = rssMb();
  const released = process.argv[1] === 'release' ? releaseFreedNativeMemory() : undefined;
  const after = rssMb();
  free(guard);
  console.log(JSON.stringify({ before, after, released }));
`;

function probe(mode: 'release' | 'leave') {
  const out = execFileSync(
    process.execPath,
    ['-r', path.join(ROOT, 'test/support/ts-register.js'), '-e', PROBE, mode],
    { cwd: ROOT, env: { PATH: process.env.PATH }, encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as { before: number; after: number; released?: boolean };
}

describe('releaseFreedNativeMemory (glibc, in a child process)', () => {
  it('left alone, 96 MiB freed inside the heap stay in the process', () => {
    const r = probe('leave');
    expect(r.before - r.after).toBeLessThan(8);
  });

  it('gives the freed 96 MiB back to the system and says so', () => {
    const r = probe('release');
    expect(r.released).toBe(true);
    expect(r.before - r.after).toBeGreaterThan(80);
  });
});

describe('nativeAllocator', () => {
  const ask = (env: Record<string, string>) =>
    execFileSync(
      process.execPath,
      [
        '-r',
        path.join(ROOT, 'test/support/ts-register.js'),
        '-e',
        `const m = require(${JSON.stringify(path.join(__dirname, 'native-allocator.ts'))});` +
          'console.log(JSON.stringify({ allocator: m.nativeAllocator(), released: m.releaseFreedNativeMemory() ?? null }))',
      ],
      { cwd: ROOT, env: { PATH: process.env.PATH!, ...env }, encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .pop()!;

  it("tells glibc's malloc from jemalloc preloaded (test/infra installs it), and trims only glibc's", () => {
    const lib = require(path.join(ROOT, 'test/infra/jemalloc.js')).ensureInstalled() as string;
    expect(JSON.parse(ask({})).allocator).toBe('glibc');
    expect(JSON.parse(ask({ LD_PRELOAD: lib }))).toEqual({ allocator: 'jemalloc', released: null });
  });
});
