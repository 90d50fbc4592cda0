import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { scannedPdf } from '../../../../../test/support/scanned-pdf';
import { DocumentRejectedError } from '../document-rejected.error';
import { PdfExtractor } from '../pdf-extractor';
import type { OcrProgress } from './page-selection';
import { PdfOcr } from './pdf-ocr';
import { OCR_LANG_PATH, OcrPoolClosedError, tesseractOptions } from './tesseract-pool';

const ROOT = path.resolve(__dirname, '../../../../..');

async function rejection(p: Promise<unknown>): Promise<DocumentRejectedError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DocumentRejectedError) return err;
    throw err;
  }
  throw new Error('expected a DocumentRejectedError');
}

const words = (s: string) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];

describe('PDF OCR (pages without a text layer)', () => {
  const extractor = new PdfExtractor({ threads: 1 });
  afterAll(() => extractor.onModuleDestroy());

  it('reads only the scanned pages, in place, and reports each page it reads', async () => {
    const pdf = await scannedPdf([
      { typed: ['Typed cover page about harbour cranes.'] },
      { scanned: ['The quarterly tide report for Port Ellison.', 'Moorings were inspected in March.'] },
      { typed: ['Typed appendix: crane maintenance log.'] },
      { scanned: ['Second scan: the pilot boat Seraphine was refitted.'] },
    ]);
    const seen: OcrProgress[] = [];
    const { pages } = await extractor.extractContent(pdf, undefined, { onOcrPage: (p) => seen.push(p) });
    expect(pages).toHaveLength(4);
    expect(pages[0]).toBe('Typed cover page about harbour cranes.');
    expect(pages[2]).toBe('Typed appendix: crane maintenance log.');
    expect(words(pages[1])).toEqual(
      expect.arrayContaining([
        'quarterly',
        'tide',
        'report',
        'port',
        'ellison',
        'moorings',
        'inspected',
        'march',
      ]),
    );
    expect(words(pages[3])).toEqual(expect.arrayContaining(['pilot', 'boat', 'seraphine', 'refitted']));
    expect(seen.map((p) => p.pageNumber).sort()).toEqual([2, 4]);
    expect(seen.every((p) => p.total === 2)).toBe(true);
  });

  it('with OCR off, a PDF of scans ends with the readable reason and a mixed one keeps its typed pages only', async () => {
    const scans = await scannedPdf([{ scanned: ['Nothing typed here.'] }]);
    const err = await rejection(extractor.extractContent(scans, undefined, { ocr: false }));
    expect(err).toMatchObject({ name: 'EmptyDocument' });
    expect(err.message).toBe(
      'The PDF has no extractable text (scanned pages need OCR, which this run turned off: indexOptions.ocr)',
    );
    const mixed = await scannedPdf([{ typed: ['Typed page.'] }, { scanned: ['Scanned page.'] }]);
    const { pages } = await extractor.extractContent(mixed, undefined, { ocr: false });
    expect(pages).toEqual(['Typed page.', '']);
  });

  it('a scan with no text in it ends EMPTY saying OCR found none', async () => {
    const blank = await scannedPdf([{ scanned: [] }]);
    const err = await rejection(extractor.extractContent(blank));
    expect(err).toMatchObject({ name: 'EmptyDocument' });
    expect(err.message).toContain('OCR read none');
  });

  it('ends a page that passes its deadline with a reason naming the page, and recovers for the next document', async () => {
    const ocr = new PdfOcr({ pageDeadlineMs: 1, workers: 1 });
    try {
      const pdf = await scannedPdf([{ typed: ['Typed.'] }, { scanned: ['Too slow to read.'] }]);
      const err = await rejection(ocr.fillPages(pdf, ['Typed.', '']));
      expect(err).toMatchObject({
        name: 'CorruptDocument',
        message: 'OCR of page 2 did not finish within 1 ms',
      });
    } finally {
      await ocr.close();
    }
    const again = new PdfOcr({ workers: 1 });
    try {
      const pdf = await scannedPdf([{ scanned: ['Readable afterwards.'] }]);
      expect(words((await again.fillPages(pdf, ['']))[0])).toEqual(['readable', 'afterwards']);
    } finally {
      await again.close();
    }
  });

  it('fails retryably, not as a bad document, when the process closes OCR meanwhile', async () => {
    const ocr = new PdfOcr({ workers: 1 });
    const pdf = await scannedPdf([{ scanned: ['Closed while reading.'] }]);
    const err = await ocr
      .fillPages(pdf, [''], { onPage: () => setTimeout(() => void ocr.close(), 200) })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OcrPoolClosedError);
    expect(err).not.toBeInstanceOf(DocumentRejectedError);
  });

  it('stops at once when the caller aborts', async () => {
    const pdf = await scannedPdf([{ scanned: ['One.'] }, { scanned: ['Two.'] }, { scanned: ['Three.'] }]);
    const ctrl = new AbortController();
    const started = Date.now();
    const p = extractor.extractContent(pdf, ctrl.signal, {
      onOcrPage: () => ctrl.abort(new Error('cancelled')),
    });
    await expect(p).rejects.toThrow('cancelled');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('takes the English model from the installed registry package, without a cache file', () => {
    const opts = tesseractOptions();
    expect(opts.langPath).toBe(OCR_LANG_PATH);
    expect(fs.existsSync(path.join(OCR_LANG_PATH, 'eng.traineddata.gz'))).toBe(true);
    expect(OCR_LANG_PATH.startsWith(path.join(ROOT, 'node_modules'))).toBe(true);
    expect(opts.cacheMethod).toBe('none');
  });

  it('reads a scan with every network access of the process and its threads refused', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-offline-'));
    try {
      const log = path.join(dir, 'log');
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          '-r',
          path.join(ROOT, 'test/support/ts-register.js'),
          '-r',
          path.join(ROOT, 'test/support/offline.js'),
          path.join(ROOT, 'test/support/ocr-offline-child.ts'),
        ],
        { cwd: dir, env: { ...process.env, DOCQA_OFFLINE_LOG: log }, timeout: 120_000 },
      ).catch((err: { stdout?: string; message: string }) => {
        throw new Error(`child failed: ${err.stdout ?? ''} ${err.message}`);
      });
      const { pages } = JSON.parse(stdout) as { pages: string[] };
      expect(words(pages[0])).toEqual(['offline', 'recognition', 'of', 'the', 'lighthouse', 'inventory']);
      const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
      expect(lines.filter((l) => l.startsWith('attempt'))).toEqual([]);
      // the guard ran in the tesseract.js threads and the render thread too, not only in main
      expect(lines.filter((l) => l === 'guard worker').length).toBeGreaterThanOrEqual(3);
      // no traineddata cache file written in the working directory
      expect(fs.readdirSync(dir)).toEqual(['log']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
