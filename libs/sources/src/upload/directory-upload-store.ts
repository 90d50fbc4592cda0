import { tooLarge } from '../bounded-body';
import { createReadStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { SourceError, type SourceOwner } from '../source.port';
import { docsetStoreKey } from './upload-names';
import type { StoredUpload, StoredUploadPage, UploadStore } from './upload-store.port';

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';

/**
 * The embedded upload store: `{root}/{accountId}/{sha256(docSetName)}/{fileName}` under
 * DATA_DIR/uploads. The etag is size, modification time in nanoseconds and inode, so a replaced file
 * lists as changed (indexing then compares content hashes before re-embedding).
 */
export class DirectoryUploadStore implements UploadStore {
  readonly kind = 'directory' as const;

  constructor(private readonly root: string) {}

  private docsetDir(o: SourceOwner): string {
    return path.join(this.root, String(o.accountId), docsetStoreKey(o.docSetName));
  }

  async check(): Promise<void> {
    try {
      await fsp.mkdir(this.root, { recursive: true });
    } catch {
      throw new SourceError('UNAVAILABLE', 'The upload store folder is not writable');
    }
  }

  async list(o: SourceOwner, pageToken: string | null, pageSize: number): Promise<StoredUploadPage> {
    const dir = this.docsetDir(o);
    let names: string[];
    try {
      names = (await fsp.readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
    } catch (err) {
      if (isMissing(err)) return { files: [], nextPageToken: null };
      throw new SourceError('UNAVAILABLE', 'The upload store could not be listed');
    }
    names.sort();
    const start = pageToken === null ? 0 : names.findIndex((n) => n > pageToken);
    const slice = start < 0 ? [] : names.slice(start, start + pageSize);
    const files: StoredUpload[] = [];
    for (const name of slice) {
      const st = await fsp.stat(path.join(dir, name), { bigint: true }).catch(() => null);
      if (!st) continue; // removed while listing
      files.push({
        fileName: name,
        etag: uploadEtag(st),
        sizeBytes: Number(st.size),
        lastModified: new Date(Number(st.mtimeMs)).toISOString(),
      });
    }
    const more = start >= 0 && start + pageSize < names.length;
    return { files, nextPageToken: more ? slice[slice.length - 1] : null };
  }

  async read(
    o: SourceOwner,
    fileName: string,
    maxBytes: number,
  ): Promise<{ data: Buffer; etag: string | null }> {
    const file = path.join(this.docsetDir(o), fileName);
    try {
      const st = await fsp.stat(file, { bigint: true });
      if (Number(st.size) > maxBytes) throw tooLarge(maxBytes);
      // Read here, not by readWithinLimit: a file removed meanwhile is NOT_FOUND (the catch below).
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) throw tooLarge(maxBytes);
        chunks.push(chunk);
      }
      const data = Buffer.concat(chunks, size);
      return { data, etag: uploadEtag(st) };
    } catch (err) {
      if (err instanceof SourceError) throw err;
      if (isMissing(err)) throw new SourceError('NOT_FOUND', 'The uploaded file is no longer in the store');
      throw new SourceError('UNAVAILABLE', 'The uploaded file could not be read');
    }
  }

  async put(o: SourceOwner, fileName: string, localPath: string, _sizeBytes?: number): Promise<void> {
    const dir = this.docsetDir(o);
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    const target = path.join(dir, fileName);
    try {
      await fsp.rename(localPath, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code !== 'EXDEV') throw err;
      // staging on another file system: copy beside the target, then rename (still atomic)
      const tmp = `${target}.${process.pid}.partial`;
      await fsp.copyFile(localPath, tmp);
      await fsp.rename(tmp, target);
    }
  }

  async deleteDocset(o: SourceOwner): Promise<void> {
    await fsp.rm(this.docsetDir(o), { recursive: true, force: true });
  }

  async deleteAccount(accountId: number): Promise<void> {
    await fsp.rm(path.join(this.root, String(accountId)), { recursive: true, force: true });
  }
}

/**
 * A stored file's version: its size, modification time and inode. A replacement is renamed into
 * place from a file that existed beside the old one, so it always has another inode, even when it
 * has the same size and lands within the file system's timestamp granularity (a re-upload of the
 * same length in the same millisecond would otherwise look unchanged and not be indexed again).
 */
function uploadEtag(st: { size: bigint; mtimeNs: bigint; ino: bigint }): string {
  return `${st.size}-${st.mtimeNs}-${st.ino}`;
}
