import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A staged file went past the byte limit; nothing of it is kept. */
export class UploadTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The file is larger than the ${limit}-byte limit`);
    this.name = 'UploadTooLargeError';
  }
}

export interface StagedFile {
  path: string;
  sizeBytes: number;
}

/** Staging folders older than this are leftovers of a process that stopped mid-request. */
const STALE_STAGING_MS = 24 * 3600_000;

/**
 * Temporary files of one upload request, under `{root}/{uuid}/`: each file streams to disk with a
 * byte cap (never whole in memory), and the store takes them only when the whole request is
 * valid. `discard()` removes whatever is left.
 */
export class UploadStaging {
  private count = 0;

  private constructor(private readonly dir: string) {}

  static async open(root: string): Promise<UploadStaging> {
    const dir = path.join(root, randomUUID());
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    return new UploadStaging(dir);
  }

  /** Removes staging folders a crashed process left behind (best effort). */
  static async sweep(root: string, now = Date.now()): Promise<void> {
    const entries = await fsp.readdir(root, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = path.join(root, e.name);
      const st = await fsp.stat(p).catch(() => null);
      if (st && now - st.mtimeMs > STALE_STAGING_MS) await fsp.rm(p, { recursive: true, force: true });
    }
  }

  /** Streams `source` into a new temporary file; UploadTooLargeError past `maxBytes`. */
  async write(source: Readable, maxBytes: number): Promise<StagedFile> {
    const file = path.join(this.dir, String(this.count++));
    let size = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > maxBytes) done(new UploadTooLargeError(maxBytes));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(source, cap, createWriteStream(file, { mode: 0o600 }));
    } catch (err) {
      await fsp.rm(file, { force: true });
      throw err;
    }
    return { path: file, sizeBytes: size };
  }

  async discard(): Promise<void> {
    await fsp.rm(this.dir, { recursive: true, force: true });
  }
}
