import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { SourceError } from '../source.port';
import { DirectoryUploadStore } from './directory-upload-store';
import { UploadStaging, UploadTooLargeError } from './upload-staging';

describe('DirectoryUploadStore and UploadStaging', () => {
  let root: string;
  let store: DirectoryUploadStore;
  let staging: UploadStaging;
  const ada = { accountId: 1, docSetName: 'handbooks' };
  const bob = { accountId: 2, docSetName: 'handbooks' };

  beforeEach(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-uploads-'));
    store = new DirectoryUploadStore(root);
    staging = await UploadStaging.open(path.join(root, '.staging'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const put = async (owner: typeof ada, name: string, text: string) => {
    const f = await staging.write(Readable.from([Buffer.from(text)]), 1000);
    await store.put(owner, name, f.path, f.sizeBytes);
  };

  it('stores per account and docset, lists in name order with paging, reads back', async () => {
    for (const n of ['c.txt', 'a.txt', 'b.txt']) await put(ada, n, `ada ${n}`);
    await put(bob, 'a.txt', 'bob a.txt');
    await put({ ...ada, docSetName: 'other' }, 'z.txt', 'elsewhere');

    const first = await store.list(ada, null, 2);
    expect(first.files.map((f) => f.fileName)).toEqual(['a.txt', 'b.txt']);
    const second = await store.list(ada, first.nextPageToken, 2);
    expect(second.files.map((f) => f.fileName)).toEqual(['c.txt']);
    expect(second.nextPageToken).toBeNull();
    expect((await store.read(ada, 'a.txt', 100)).data.toString()).toBe('ada a.txt');
    expect((await store.read(bob, 'a.txt', 100)).data.toString()).toBe('bob a.txt');
    await expect(store.read(bob, 'b.txt', 100)).rejects.toMatchObject({ kind: 'NOT_FOUND' });
    await expect(store.read(ada, 'a.txt', 3)).rejects.toMatchObject({ kind: 'TOO_LARGE' });
    expect((await store.list({ ...ada, docSetName: 'none' }, null, 10)).files).toEqual([]);
  });

  it('gives a replaced file a new etag', async () => {
    await put(ada, 'a.txt', 'one');
    const [before] = (await store.list(ada, null, 10)).files;
    await put(ada, 'a.txt', 'two');
    const [after] = (await store.list(ada, null, 10)).files;
    expect(after.etag).not.toBe(before.etag);
    expect((await store.read(ada, 'a.txt', 100)).data.toString()).toBe('two');
  });

  it('deletes one docset, then a whole account, leaving others', async () => {
    await put(ada, 'a.txt', 'x');
    await put({ ...ada, docSetName: 'keep' }, 'k.txt', 'x');
    await put(bob, 'a.txt', 'x');
    await store.deleteDocset(ada);
    expect((await store.list(ada, null, 10)).files).toEqual([]);
    expect((await store.list({ ...ada, docSetName: 'keep' }, null, 10)).files).toHaveLength(1);
    await store.deleteAccount(1);
    expect((await store.list({ ...ada, docSetName: 'keep' }, null, 10)).files).toEqual([]);
    expect((await store.list(bob, null, 10)).files).toHaveLength(1);
  });

  it('staging refuses a file past the limit and keeps nothing of it; discard removes the rest', async () => {
    await expect(
      staging.write(Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), 1000),
    ).rejects.toBeInstanceOf(UploadTooLargeError);
    const stagingDir = path.join(root, '.staging');
    const [dir] = fs.readdirSync(stagingDir);
    expect(fs.readdirSync(path.join(stagingDir, dir))).toEqual([]);
    const ok = await staging.write(Readable.from([Buffer.alloc(1000)]), 1000);
    expect(ok.sizeBytes).toBe(1000);
    await staging.discard();
    expect(fs.readdirSync(stagingDir)).toEqual([]);
  });

  it('staging removes the partial file when the client stream fails', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(10));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(staging.write(failing, 1000)).rejects.toThrow('client went away');
    const stagingDir = path.join(root, '.staging');
    expect(fs.readdirSync(path.join(stagingDir, fs.readdirSync(stagingDir)[0]))).toEqual([]);
  });

  it('SourceError is what a missing file raises', async () => {
    await expect(store.read(ada, 'missing.pdf', 10)).rejects.toBeInstanceOf(SourceError);
  });
});
