import { randomBytes, randomUUID } from 'node:crypto';

/** A file or folder of the fake drive. */
export interface Item {
  id: string;
  name: string;
  parentId: string | null;
  folder: boolean;
  content?: Buffer;
  version: number;
  modified: string;
  deleted?: boolean;
  /** Position in the change log of the last change. */
  seq: number;
}

const now = () => new Date().toISOString();

const split = (p: string) => {
  const i = p.lastIndexOf('/');
  return i < 0 ? { folder: '', name: p } : { folder: p.slice(0, i), name: p.slice(i + 1) };
};

/**
 * The fake Graph's one document library, in memory: items by id, children by folder, and the
 * change log whose positions are its delta tokens. Paths are `/`-separated from the root and
 * matched case-insensitively, as SharePoint matches them.
 */
export class FakeDrive {
  readonly id = `b!${randomBytes(24).toString('base64url')}`;
  readonly siteId = `contoso.sharepoint.com,${randomUUID()},${randomUUID()}`;
  readonly rootId = 'root-' + randomBytes(6).toString('hex');
  private readonly items = new Map<string, Item>();
  private readonly children = new Map<string, string[]>();
  /** itemId per change, in order; a delta token is a position in this log. */
  private readonly log: string[] = [];

  constructor() {
    this.items.set(this.rootId, {
      id: this.rootId,
      name: 'root',
      parentId: null,
      folder: true,
      version: 1,
      modified: now(),
      seq: 0,
    });
    this.children.set(this.rootId, []);
  }

  /** The number of changes so far: the delta token that lists none of them. */
  get changeCount(): number {
    return this.log.length;
  }

  get(id: string): Item | undefined {
    return this.items.get(id);
  }

  get root(): Item {
    return this.items.get(this.rootId)!;
  }

  /** How many children a folder has had, deleted ones included. */
  childCount(folderId: string): number {
    return (this.children.get(folderId) ?? []).length;
  }

  /** The folder's children that are not deleted, in the order they were added. */
  childrenOf(folderId: string): Item[] {
    return (this.children.get(folderId) ?? []).map((id) => this.items.get(id)!).filter((k) => !k.deleted);
  }

  /** Latest state of every item changed after log position `from`, once, in log order. */
  changedSince(from: number): Item[] {
    const seen = new Set<string>();
    const changed: Item[] = [];
    for (let i = from; i < this.log.length; i++) {
      const it = this.items.get(this.log[i])!;
      if (seen.has(it.id) || it.seq !== i + 1) continue;
      seen.add(it.id);
      changed.push(it);
    }
    return changed;
  }

  pathOf(item: Item): string {
    const parts: string[] = [];
    let cur: Item | undefined = item;
    while (cur && cur.parentId !== null) {
      parts.unshift(cur.name);
      cur = this.items.get(cur.parentId);
    }
    return parts.join('/');
  }

  resolve(p: string): Item | undefined {
    let cur = this.root;
    for (const seg of p.split('/').filter(Boolean)) {
      const next = this.childNamed(cur.id, seg);
      if (!next) return undefined;
      cur = next;
    }
    return cur;
  }

  addFile(filePath: string, content: string | Buffer): string {
    const { folder, name } = split(filePath);
    const parent = this.ensureFolder(folder);
    if (this.childNamed(parent.id, name)) throw new Error(`exists: ${filePath}`);
    return this.add(parent.id, name, content);
  }

  /** Many small files quickly: `${folder}/f-00001.txt` ... */
  addFiles(folder: string, count: number, content: (i: number) => string): void {
    const parent = this.ensureFolder(folder);
    for (let i = 0; i < count; i++) this.add(parent.id, `f-${String(i).padStart(5, '0')}.txt`, content(i));
  }

  updateFile(filePath: string, content: string | Buffer): void {
    const it = this.resolve(filePath);
    if (!it || it.folder) throw new Error(`no file ${filePath}`);
    it.content = Buffer.from(content);
    it.version++;
    it.modified = now();
    this.touch(it);
  }

  deleteFile(filePath: string): void {
    const it = this.resolve(filePath);
    if (!it) throw new Error(`no file ${filePath}`);
    it.deleted = true;
    this.touch(it);
  }

  renameFile(filePath: string, newName: string): void {
    const it = this.resolve(filePath);
    if (!it) throw new Error(`no file ${filePath}`);
    it.name = newName;
    it.version++;
    this.touch(it);
  }

  itemIdOf(filePath: string): string {
    const it = this.resolve(filePath);
    if (!it) throw new Error(`no item ${filePath}`);
    return it.id;
  }

  private add(parentId: string, name: string, content: string | Buffer): string {
    const it: Item = {
      id: randomUUID(),
      name,
      parentId,
      folder: false,
      content: Buffer.from(content),
      version: 1,
      modified: now(),
      seq: 0,
    };
    this.items.set(it.id, it);
    this.children.get(parentId)!.push(it.id);
    this.touch(it);
    return it.id;
  }

  private touch(item: Item): void {
    this.log.push(item.id);
    item.seq = this.log.length;
  }

  private childNamed(parentId: string, name: string): Item | undefined {
    for (const id of this.children.get(parentId) ?? []) {
      const it = this.items.get(id)!;
      if (!it.deleted && it.name.toLowerCase() === name.toLowerCase()) return it;
    }
    return undefined;
  }

  private ensureFolder(p: string): Item {
    let cur = this.root;
    for (const seg of p.split('/').filter(Boolean)) {
      let next = this.childNamed(cur.id, seg);
      if (!next) {
        next = {
          id: randomUUID(),
          name: seg,
          parentId: cur.id,
          folder: true,
          version: 1,
          modified: now(),
          seq: 0,
        };
        this.items.set(next.id, next);
        this.children.get(cur.id)!.push(next.id);
        this.children.set(next.id, []);
        this.touch(next);
      }
      cur = next;
    }
    return cur;
  }
}
