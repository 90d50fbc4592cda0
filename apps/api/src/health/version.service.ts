import { Inject, Injectable } from '@nestjs/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { APP_CONFIG, AppConfig } from '@docqa/common';

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

/** Commit from GIT_COMMIT, else from .git, read once at start-up. */
function readGitCommit(): string | null {
  for (const dir of [ROOT, path.resolve(ROOT, '..')]) {
    try {
      const head = fs.readFileSync(path.join(dir, '.git', 'HEAD'), 'utf8').trim();
      if (!head.startsWith('ref: ')) return head;
      const ref = head.slice(5);
      const refFile = path.join(dir, '.git', ref);
      if (fs.existsSync(refFile)) return fs.readFileSync(refFile, 'utf8').trim();
      const packed = fs.readFileSync(path.join(dir, '.git', 'packed-refs'), 'utf8');
      const line = packed.split('\n').find((l) => l.endsWith(' ' + ref));
      if (line) return line.split(' ')[0];
    } catch {
      // not a git checkout here
    }
  }
  return null;
}

@Injectable()
export class VersionService {
  private readonly info: { name: string; version: string; commit: string | null };

  constructor(@Inject(APP_CONFIG) cfg: AppConfig) {
    this.info = { name: 'docqa', version: readPackageVersion(), commit: cfg.gitCommit ?? readGitCommit() };
  }

  get() {
    return this.info;
  }
}
