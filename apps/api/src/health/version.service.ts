import { Inject, Injectable } from '@nestjs/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Embedder, EMBEDDER } from '@docqa/embeddings';

const ROOT = path.resolve(__dirname, '../../../..');

function readPackageVersion(): string {
  for (const dir of [ROOT, path.resolve(ROOT, '..')]) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'docqa' && pkg.version) return pkg.version;
    }
  }
  return '0.0.0';
}

/** The git directory of a checkout, also when `.git` is a file (worktrees, submodules). */
function gitDirs(dir: string): { gitDir: string; commonDir: string } | null {
  const dotGit = path.join(dir, '.git');
  if (!fs.existsSync(dotGit)) return null;
  let gitDir = dotGit;
  if (fs.statSync(dotGit).isFile()) {
    const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'));
    if (!m) return null;
    gitDir = path.resolve(dir, m[1].trim());
  }
  const commonFile = path.join(gitDir, 'commondir');
  const commonDir = fs.existsSync(commonFile)
    ? path.resolve(gitDir, fs.readFileSync(commonFile, 'utf8').trim())
    : gitDir;
  return { gitDir, commonDir };
}

/** Commit from the COMMIT file the image build writes, else from .git, read once at start-up. */
function readGitCommit(): string | null {
  for (const dir of [ROOT, path.resolve(ROOT, '..')]) {
    const stamped = path.join(dir, 'COMMIT');
    if (fs.existsSync(stamped)) {
      const commit = fs.readFileSync(stamped, 'utf8').trim();
      if (commit) return commit;
    }
    try {
      const dirs = gitDirs(dir);
      if (!dirs) continue;
      const head = fs.readFileSync(path.join(dirs.gitDir, 'HEAD'), 'utf8').trim();
      if (!head.startsWith('ref: ')) return head;
      const ref = head.slice(5);
      for (const base of [dirs.gitDir, dirs.commonDir]) {
        const refFile = path.join(base, ref);
        if (fs.existsSync(refFile)) return fs.readFileSync(refFile, 'utf8').trim();
      }
      const packed = fs.readFileSync(path.join(dirs.commonDir, 'packed-refs'), 'utf8');
      const line = packed.split('\n').find((l) => l.endsWith(' ' + ref));
      if (line) return line.split(' ')[0];
    } catch {
      // not a git checkout here
    }
  }
  return null;
}

/** What /version says about the embedder: the index version follows its model and dimensions. */
export interface EmbedderInfo {
  model: string;
  dimensions: number;
  /** Set when the preferred local model is missing and the hashing embedder stands in. */
  warning?: string;
}

@Injectable()
export class VersionService {
  private readonly info: {
    name: string;
    version: string;
    commit: string | null;
    embedder: EmbedderInfo;
  };

  constructor(@Inject(EMBEDDER) embedder: Embedder) {
    this.info = {
      name: 'docqa',
      version: readPackageVersion(),
      commit: readGitCommit(),
      embedder: {
        model: embedder.modelName,
        dimensions: embedder.dimensions,
        ...(embedder.warning ? { warning: embedder.warning } : {}),
      },
    };
  }

  get() {
    return this.info;
  }
}
