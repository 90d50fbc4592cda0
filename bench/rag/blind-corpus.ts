/* The blind corpus (bench/eval/blind): 12 PDFs of Debian bookworm packages that no development
 * round used, with 60 questions written by someone who never saw the answerer. The questions are
 * committed; the PDFs are fetched on first use with `apt-get download` (pinned package versions),
 * cut out of the package with dpkg-deb, checked against their sha256 and kept under
 * ~/.cache/docqa/corpus/blind. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface BlindSource {
  file: string;
  package: string;
  version: string;
  /** Path of the file inside the package (gzip-compressed where `gzip`). */
  path: string;
  gzip: boolean;
  /** Of the PDF as kept (decompressed). */
  sha256: string;
  pages: number;
}

/** bench/eval/blind, found upwards from here (this file runs from source in tests, from dist in the eval). */
function blindDir(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'bench', 'eval', 'blind');
    if (fs.existsSync(path.join(candidate, 'sources.json'))) return candidate;
    if (path.dirname(dir) === dir) throw new Error('bench/eval/blind/sources.json not found');
  }
}

const BLIND_DIR = blindDir();
export const BLIND_QA_FILE = path.join(BLIND_DIR, 'qa.jsonl');
export const BLIND_CACHE_DIR = path.join(
  process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
  'docqa',
  'corpus',
  'blind',
);

export function blindSources(): BlindSource[] {
  return JSON.parse(fs.readFileSync(path.join(BLIND_DIR, 'sources.json'), 'utf8')) as BlindSource[];
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function intact(file: string, expected: string): boolean {
  return fs.existsSync(file) && sha256(fs.readFileSync(file)) === expected;
}

function download(work: string, s: BlindSource): string {
  const get = () =>
    execFileSync('apt-get', ['download', '-qq', `${s.package}=${s.version}`], { cwd: work, stdio: 'pipe' });
  try {
    get();
  } catch {
    // A fresh machine may have no package lists yet; refreshing them needs root.
    if (process.getuid?.() !== 0)
      throw new Error(
        `apt-get download ${s.package}=${s.version} failed; run "apt-get update" as root, then the eval again`,
      );
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'pipe' });
    get();
  }
  const deb = fs.readdirSync(work).find((f) => f.startsWith(`${s.package}_`) && f.endsWith('.deb'));
  if (!deb) throw new Error(`apt-get download ${s.package}=${s.version} wrote no .deb`);
  return path.join(work, deb);
}

/** One file of a package, read out of its data archive (`path` as installed, e.g. /usr/share/doc/x.pdf). */
function extract(deb: string, member: string): Buffer {
  try {
    return execFileSync(
      'sh',
      ['-c', 'dpkg-deb --fsys-tarfile "$1" | tar -xOf - "./$2"', 'sh', deb, member.replace(/^\/+/, '')],
      {
        maxBuffer: 256 * 2 ** 20,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(
      `${member} could not be read out of ${path.basename(deb)}: ${stderr || (err as Error).message}`,
    );
  }
}

/** The corpus directory, with every PDF present and intact (fetched if not). */
export function ensureBlindCorpus(log: (s: string) => void = () => undefined): string {
  fs.mkdirSync(BLIND_CACHE_DIR, { recursive: true });
  const missing = blindSources().filter((s) => !intact(path.join(BLIND_CACHE_DIR, s.file), s.sha256));
  if (missing.length === 0) return BLIND_CACHE_DIR;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-blind-'));
  try {
    for (const s of missing) {
      log(`blind corpus: fetching ${s.file} from ${s.package} ${s.version}`);
      const deb = download(work, s);
      const member = extract(deb, s.path);
      const pdf = s.gzip ? gunzipSync(member) : member;
      if (sha256(pdf) !== s.sha256)
        throw new Error(`${s.file} from ${s.package} ${s.version} does not match its sha256 in sources.json`);
      fs.writeFileSync(path.join(BLIND_CACHE_DIR, s.file), pdf);
      fs.rmSync(deb);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return BLIND_CACHE_DIR;
}
