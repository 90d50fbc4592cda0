import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * Runs in a fresh Node process (the threshold is process-wide and set once): optionally fixes the
 * threshold, frees an 8 MiB mapped block (which makes glibc raise its threshold past 8 MiB unless
 * it was fixed), then reports how many bytes of mapped memory a 2 MiB allocation added.
 */
const PROBE = `
  const koffi = require('koffi');
  const { fixNativeMmapThreshold } = require(${JSON.stringify(path.join(__dirname, 'native-allocator.ts'))});
  const libc = koffi.load('libc.so.6');
  const malloc = libc.func('void *malloc(size_t size)');
  const free = libc.func('void free(void *ptr)');
  const info = koffi.struct('mallinfo2', Object.fromEntries(
    ['arena', 'ordblks', 'smblks', 'hblks', 'hblkhd', 'usmblks', 'fsmblks', 'uordblks', 'fordblks', 'keepcost']
      .map((k) => [k, 'size_t'])));
  const mallinfo2 = libc.func('mallinfo2', info, []);
  const tuning = process.argv[1] === 'fix' ? fixNativeMmapThreshold() : undefined;
  free(malloc(8 << 20));
  const before = mallinfo2().hblkhd;
  const block = malloc(2 << 20);
  const mappedBytes = mallinfo2().hblkhd - before;
  free(block);
  console.log(JSON.stringify({ tuning, mappedBytes, again: process.argv[1] === 'fix' ? fixNativeMmapThreshold() : undefined }));
`;

function probe(mode: 'fix' | 'leave', env: Record<string, string> = {}) {
  const out = execFileSync(
    process.execPath,
    ['-r', path.join(ROOT, 'test/support/ts-register.js'), '-e', PROBE, mode],
    { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as {
    tuning?: { applied: boolean; detail: string };
    again?: { applied: boolean; detail: string };
    mappedBytes: number;
  };
}

describe('fixNativeMmapThreshold (glibc, in a child process)', () => {
  it('left alone, glibc raises its threshold after a large free: the next 2 MiB block comes from an arena', () => {
    expect(probe('leave').mappedBytes).toBe(0);
  });

  it('fixed, a 2 MiB block is mapped even after a larger one was freed (so freeing it returns the memory)', () => {
    const r = probe('fix');
    expect(r.tuning).toEqual({ applied: true, detail: 'mmap threshold fixed at 1 MiB' });
    expect(r.mappedBytes).toBeGreaterThanOrEqual(2 << 20);
    // a second call (another entry point in the same process) changes nothing and says the same
    expect(r.again).toEqual(r.tuning);
  });

  it("keeps an operator's MALLOC_MMAP_THRESHOLD_ (glibc's own setting, read at process start)", () => {
    const r = probe('fix', { MALLOC_MMAP_THRESHOLD_: String(4 << 20) });
    expect(r.tuning?.applied).toBe(false);
    expect(r.tuning?.detail).toMatch(/left to the environment/);
    // glibc applied the operator's 4 MiB: a 2 MiB block is not mapped
    expect(r.mappedBytes).toBe(0);
  });

  it('keeps a GLIBC_TUNABLES mmap threshold too', () => {
    const r = probe('fix', { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' });
    expect(r.tuning?.applied).toBe(false);
    expect(r.mappedBytes).toBeGreaterThanOrEqual(2 << 20);
  });
});
