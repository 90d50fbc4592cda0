/* OCR benchmark: pages/s of the product's OCR path on 2 cores and its word accuracy against
 * pdftotext, on dev corpus pages rendered to images.
 *   npm run bench:ocr
 *   BENCH_PAGES=24 BENCH_DPIS=200,300 npm run bench:ocr
 * Pages: BENCH_PAGES pages of the dev corpus (/work/shared/corpus/dev, or BENCH_SHARED), spread
 * over its PDFs, each with at least 80 words of text layer. Each page is rendered by the product's
 * render thread (PDF.js onto @napi-rs/canvas, PageRenderSession) at each DPI and read by the
 * product's tesseract.js pool (OCR_WORKERS workers, English best_int model from
 * @tesseract.js-data/eng). The reference is `pdftotext` (poppler) of the same page. Accuracy is
 * word recall: the share of the reference's words (lower-cased letter/digit runs, NFKC) that the
 * OCR text holds, counted with multiplicity. Writes docs/benchmarks/ocr.md (latest run only). */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PageRenderSession, OCR_RENDER_DPI } from '@docqa/indexing/extraction/ocr/page-renderer';
import { OCR_PAGE_DEADLINE_MS, OCR_WORKERS } from '@docqa/indexing/extraction/ocr/pdf-ocr';
import { OCR_LANG_PATH, TesseractPool } from '@docqa/indexing/extraction/ocr/tesseract-pool';

const ROOT = path.resolve(__dirname, '../../../..');
const SHARED = process.env.BENCH_SHARED ?? path.join(ROOT, '../shared');
const CORPUS = fs.existsSync(path.join(SHARED, 'corpus/dev'))
  ? path.join(SHARED, 'corpus/dev')
  : '/work/shared/corpus/dev';
const PAGES = Number(process.env.BENCH_PAGES ?? 24);
const DPIS = (process.env.BENCH_DPIS ?? `${OCR_RENDER_DPI},300`).split(',').map(Number);
const OUT = path.join(ROOT, 'docs/benchmarks/ocr.md');
const log = (s: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}`);

interface Page {
  file: string;
  pageNumber: number;
  reference: string;
}

const words = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/** Share of `reference`'s words found in `ocr` (multiset recall). */
export function wordRecall(reference: string, ocr: string): { matched: number; total: number } {
  const have = new Map<string, number>();
  for (const w of words(ocr)) have.set(w, (have.get(w) ?? 0) + 1);
  let matched = 0;
  const ref = words(reference);
  for (const w of ref) {
    const n = have.get(w) ?? 0;
    if (n > 0) {
      matched++;
      have.set(w, n - 1);
    }
  }
  return { matched, total: ref.length };
}

function pdftotext(file: string, page: number): string {
  return execFileSync('pdftotext', ['-f', String(page), '-l', String(page), '-enc', 'UTF-8', file, '-'], {
    encoding: 'utf8',
  });
}

function pageCount(file: string): number {
  const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? 0);
}

/** PAGES pages spread over the corpus: round-robin over the PDFs, evenly through each. */
function samplePages(): Page[] {
  const files = fs
    .readdirSync(CORPUS)
    .filter((f) => f.endsWith('.pdf'))
    .sort();
  const perFile = Math.ceil(PAGES / files.length) + 1;
  const candidates: Page[][] = files.map((f) => {
    const file = path.join(CORPUS, f);
    const n = pageCount(file);
    const out: Page[] = [];
    for (let k = 1; k <= perFile * 3 && out.length < perFile; k++) {
      const pageNumber = Math.max(1, Math.round((k * n) / (perFile * 3 + 1)));
      if (out.some((p) => p.pageNumber === pageNumber)) continue;
      const reference = pdftotext(file, pageNumber);
      if (words(reference).length >= 80) out.push({ file, pageNumber, reference });
    }
    return out;
  });
  const picked: Page[] = [];
  for (let round = 0; picked.length < PAGES && candidates.some((c) => c.length > round); round++)
    for (const c of candidates) if (c[round] && picked.length < PAGES) picked.push(c[round]);
  return picked;
}

interface Result {
  dpi: number;
  pages: number;
  renderSeconds: number;
  ocrSeconds: number;
  wallSeconds: number;
  /** CPU time of the process (main thread, render threads, tesseract.js threads) over the run. */
  cpuSeconds: number;
  /** Load average (1 min) of the machine at the end: other processes share the cores. */
  load: number;
  recall: number;
  worstPage: { name: string; recall: number };
  pagesBelow95: number;
  maxPageSeconds: number;
  /** Pages whose OCR failed or passed OCR_PAGE_DEADLINE_MS (counted as no words read). */
  failed: number;
}

async function measure(pages: Page[], dpi: number): Promise<Result> {
  const pool = new TesseractPool({ workers: OCR_WORKERS, nice: 0, idleMs: 60_000 });
  // warm-up: start the workers (model load) outside the measured time
  const warm = await PageRenderSession.open(fs.readFileSync(pages[0].file), {
    nice: 0,
    maxHeapMb: 1024,
    dpi,
  });
  const warmImage = await warm.render(pages[0].pageNumber);
  await warm.close();
  await Promise.all(
    Array.from({ length: OCR_WORKERS }, () => pool.recognize(warmImage, OCR_PAGE_DEADLINE_MS)),
  );

  let renderMs = 0;
  let ocrMs = 0;
  let maxPageMs = 0;
  let failed = 0;
  const texts: string[] = new Array(pages.length);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  // the product's shape: OCR_WORKERS lanes, each rendering a page then reading it
  const sessions = new Map<string, PageRenderSession>();
  let next = 0;
  const lane = async () => {
    while (next < pages.length) {
      const i = next++;
      const p = pages[i];
      let session = sessions.get(p.file);
      if (!session) {
        session = await PageRenderSession.open(fs.readFileSync(p.file), { nice: 0, maxHeapMb: 1024, dpi });
        sessions.set(p.file, session);
      }
      const r0 = performance.now();
      const image = await session.render(p.pageNumber);
      const r1 = performance.now();
      texts[i] = await pool.recognize(image, OCR_PAGE_DEADLINE_MS).catch((err: Error) => {
        log(`dpi ${dpi} page ${i + 1}: ${err.message}`);
        failed++;
        return '';
      });
      const r2 = performance.now();
      renderMs += r1 - r0;
      ocrMs += r2 - r1;
      maxPageMs = Math.max(maxPageMs, r2 - r1);
      log(
        `dpi ${dpi} page ${i + 1}/${pages.length} ${path.basename(p.file)} p${p.pageNumber}: ${((r2 - r1) / 1000).toFixed(1)} s`,
      );
    }
  };
  await Promise.all(Array.from({ length: OCR_WORKERS }, lane));
  const wallSeconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const load = os.loadavg()[0];
  await Promise.all([...sessions.values()].map((s) => s.close()));
  await pool.close();

  let matched = 0;
  let total = 0;
  let worst = { name: '', recall: 1 };
  let below = 0;
  pages.forEach((p, i) => {
    const r = wordRecall(p.reference, texts[i]);
    matched += r.matched;
    total += r.total;
    const recall = r.matched / r.total;
    if (recall < 0.95) below++;
    if (recall < worst.recall) worst = { name: `${path.basename(p.file)} p${p.pageNumber}`, recall };
  });
  return {
    dpi,
    pages: pages.length,
    renderSeconds: renderMs / 1000,
    ocrSeconds: ocrMs / 1000,
    wallSeconds,
    cpuSeconds,
    load,
    recall: matched / total,
    worstPage: worst,
    pagesBelow95: below,
    maxPageSeconds: maxPageMs / 1000,
    failed,
  };
}

function report(pages: Page[], results: Result[]): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const rows = results.map(
    (r) =>
      `| ${r.dpi}${r.dpi === OCR_RENDER_DPI ? ' (product)' : ''} | ${r.pages} | ${(r.cpuSeconds / r.pages).toFixed(2)} | ` +
      `${((2 * r.pages) / r.cpuSeconds).toFixed(2)} | ${(r.pages / r.wallSeconds).toFixed(2)} (load ${r.load.toFixed(1)}) | ` +
      `${(r.ocrSeconds / r.pages).toFixed(1)} | ${(r.renderSeconds / r.pages).toFixed(2)} | ${r.maxPageSeconds.toFixed(1)} | ` +
      `${pct(r.recall)} | ${r.pagesBelow95} | ${r.failed} | ${r.worstPage.name} (${pct(r.worstPage.recall)}) |`,
  );
  const files = [...new Set(pages.map((p) => path.basename(p.file)))];
  return `# Benchmark: OCR of scanned PDF pages

Command: \`npm run bench:ocr\` (options: \`BENCH_PAGES=n\`, \`BENCH_DPIS=200,300\`). Source: \`bench/ocr/run.ts\`.
Latest run: ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}.

What runs: the product's OCR path (libs/indexing/src/extraction/ocr): each page rendered by PDF.js
(unpdf) onto @napi-rs/canvas in a render thread, then read by the tesseract.js pool
(${OCR_WORKERS} workers, LSTM engine, English \`best_int\` model from \`@tesseract.js-data/eng\`, loaded
from node_modules), ${OCR_WORKERS} pages in flight as in indexing. Pages: ${pages.length} dev corpus pages
with at least 80 words of text layer, spread over ${files.length} PDFs (${files.join(', ')}). The
text layer is ignored: each page is read from its image. Reference: \`pdftotext\` (poppler) of the
same page. Word accuracy = share of the reference's words (lower-cased letter/digit runs, NFKC,
with multiplicity) found in the OCR text. Workers are started before timing (model load ~1.5 s
per worker, once per process).

| DPI | pages | CPU s/page | pages/s on 2 cores (from CPU) | pages/s measured (wall) | OCR wall s/page (one worker) | render wall s/page | slowest page wall s | word accuracy | pages < 95% | pages past deadline | worst page |
|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Reading: CPU s/page is the CPU time the process spent (render and OCR threads included) per
page; with 2 cores to itself the path reads 2 / (CPU s/page) pages per second, the "pages/s on 2
cores" column. The measured wall-clock rate is also given with the machine's load average: this
machine is shared, and a load above 2 means other processes took part of the cores, so wall
times are slower than an idle 2-core worker's. OCR_RENDER_DPI
(${OCR_RENDER_DPI}) is the product's render resolution, OCR_PAGE_DEADLINE_MS (${OCR_PAGE_DEADLINE_MS / 1000} s) the
per-page deadline (libs/indexing/src/extraction/ocr). The pages are born-digital typeset text
rendered without scanner noise: real scans (skew, blur, bleed-through) read worse; the figure is
an upper bound for clean office scans at the same resolution. Pages of code listings, tables and
formulas lose most (OCR splits or merges symbols and columns differently from the text layer).
`;
}

async function main(): Promise<void> {
  log(`corpus ${CORPUS}, model ${OCR_LANG_PATH}`);
  const pages = samplePages();
  log(`${pages.length} pages sampled`);
  const results: Result[] = [];
  for (const dpi of DPIS) {
    const r = await measure(pages, dpi);
    log(JSON.stringify(r));
    results.push(r);
  }
  fs.writeFileSync(OUT, report(pages, results));
  log(`wrote ${path.relative(ROOT, OUT)}`);
}

void main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
