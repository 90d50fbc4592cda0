import koffi from 'koffi';
import * as fs from 'node:fs';

export type NativeAllocator = 'jemalloc' | 'glibc' | 'other';

let allocator: NativeAllocator | undefined;

/**
 * The malloc this process runs on: jemalloc when `npm start` preloaded it (where installed,
 * scripts/setup/allocator.js), else glibc's on Linux. Read once from the process's mappings.
 */
export function nativeAllocator(): NativeAllocator {
  if (allocator) return allocator;
  let maps = '';
  try {
    maps = fs.readFileSync('/proc/self/maps', 'utf8');
  } catch {
    // not Linux
  }
  allocator = /libjemalloc/.test(maps) ? 'jemalloc' : /\/libc[.-]/.test(maps) ? 'glibc' : 'other';
  return allocator;
}

/** malloc_trim from glibc, or null where there is none (not Linux, musl), looked up once. */
let mallocTrim: ((pad: number) => number) | null | undefined;

function lookUp(): ((pad: number) => number) | null {
  if (process.platform !== 'linux') return null;
  try {
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as (pad: number) => number;
  } catch {
    return null;
  }
}

/**
 * Whether releaseFreedNativeMemory can do anything in this process: glibc's allocator on Linux
 * (under jemalloc, which returns freed pages itself, glibc's arenas hold nothing to trim).
 */
export function canReleaseFreedNativeMemory(): boolean {
  if (mallocTrim === undefined) mallocTrim = nativeAllocator() === 'glibc' ? lookUp() : null;
  return mallocTrim !== null;
}

/**
 * Gives the memory that native code (the embedded search engine) has freed back to the system:
 * glibc's malloc_trim(0), which walks every arena and returns their free whole pages.
 *
 * Why: glibc raises its mmap threshold each time a mapped block is freed, after which the embedded
 * engine's multi-MiB write and compaction buffers come from per-thread arenas that seldom give
 * freed space back, so the process grows through a long indexing run although neither the JS heap
 * nor the engine's caches do. Trimming after each of the engine's maintenance runs (when most is
 * freed) took 16 ms a run and lowered the product's peak by about 230 MB over the first 20 minutes
 * of a 100,000-file library; the memory still rises. A fixed threshold (MALLOC_MMAP_THRESHOLD_)
 * lowers it a little more but maps and unmaps every large buffer, asks' included (about 0.9x their
 * throughput), so it stays the operator's choice (docs/adr/0034).
 *
 * Returns whether any memory was released; undefined, doing nothing, where there is no glibc.
 */
export function releaseFreedNativeMemory(): boolean | undefined {
  return canReleaseFreedNativeMemory() ? mallocTrim!(0) === 1 : undefined;
}
