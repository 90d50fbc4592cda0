import * as fs from 'node:fs';
import * as path from 'node:path';
import { minimalPdf } from '../../../../test/support/pdf';
import { niceOf, threadsAtNice } from '../../../../test/support/threads';
import { eventually } from '../../../../test/support/wait';
import { DocumentRejectedError } from './document-rejected.error';
import { DocumentExtractor } from './extractor';
import { PdfExtractor } from './pdf-extractor';

const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/indexing');
const CORPUS = path.join(
  process.env.DOCQA_SHARED_DIR ?? path.resolve(__dirname, '../../../../../shared'),
  'corpus',
  'dev',
);

async function rejection(p: Promise<unknown>): Promise<DocumentRejectedError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DocumentRejectedError) return err;
    throw err;
  }
  throw new Error('expected a DocumentRejectedError');
}

describe('DocumentExtractor', () => {
  const pdf = new PdfExtractor({ threads: 1, timeoutMs: 60_000, maxHeapMb: 512 });
  const extractor = new DocumentExtractor(pdf);
  afterAll(() => pdf.onModuleDestroy());

  it('extracts PDF pages in physical order (unpdf in a worker thread)', async () => {
    const pages = await extractor.extract(
      'pdf',
      minimalPdf(['First page about harbour cranes.', 'Second: tide tables.']),
    );
    expect(pages).toHaveLength(2);
    expect(pages[0]).toContain('harbour cranes');
    expect(pages[1]).toContain('tide tables');
  });

  it('parses at the nice value it is given (BACKGROUND_THREADS_LOW_PRIORITY), leaving the event loop at 0', async () => {
    const before = threadsAtNice(10);
    const low = new PdfExtractor({ threads: 1, timeoutMs: 60_000, maxHeapMb: 512, nice: 10 });
    try {
      expect(await low.extract(minimalPdf(['A page parsed at low priority.']))).toHaveLength(1);
      expect(threadsAtNice(10)).toBe(before + 1);
      expect(niceOf(process.pid)).toBe(0);
    } finally {
      await low.onModuleDestroy();
    }
    // the threads end asynchronously after the close
    await eventually(async () => (threadsAtNice(10) === before ? true : undefined), 10_000, 50);
  });

  it('reads every page of a real PDF (corpus geometry.pdf, 42 pages)', async () => {
    const pages = await extractor.extract('pdf', fs.readFileSync(path.join(CORPUS, 'geometry.pdf')));
    expect(pages).toHaveLength(42);
    expect(pages[0]).toContain('geometry');
  });

  it('returns the PDF metadata title with the pages, and none where there is none', async () => {
    const titled = await extractor.extractDocument(
      'pdf',
      fs.readFileSync(path.join(CORPUS, 'screenplay.pdf')),
    );
    expect(titled.title).toBe('A LaTeX2e class for Draft Screenplays');
    expect(titled.pages.length).toBeGreaterThan(1);
    const untitled = await extractor.extractDocument('pdf', minimalPdf(['No metadata here.']));
    expect(untitled).toEqual({ pages: [expect.stringContaining('No metadata here.')], title: null });
    expect((await extractor.extractDocument('txt', Buffer.from('plain'))).title).toBeNull();
  });

  it('rejects encrypted, corrupt and text-less PDFs with a readable reason', async () => {
    const encrypted = await rejection(
      extractor.extract('pdf', fs.readFileSync(path.join(FIXTURES, 'encrypted.pdf'))),
    );
    expect(encrypted).toMatchObject({
      name: 'EncryptedDocument',
      message: expect.stringContaining('encrypted'),
    });
    const notPdf = await rejection(extractor.extract('pdf', Buffer.from('this is not a pdf at all')));
    expect(notPdf.name).toBe('CorruptDocument');
    const broken = await rejection(extractor.extract('pdf', Buffer.from('%PDF-1.4\n1 0 obj << garbage')));
    expect(broken.name).toBe('CorruptDocument');
    const empty = await rejection(extractor.extract('pdf', minimalPdf([''])));
    expect(empty).toMatchObject({ name: 'EmptyDocument', message: expect.stringContaining('OCR') });
  });

  it('keeps the extraction thread usable after a failure', async () => {
    await rejection(extractor.extract('pdf', Buffer.from('%PDF-1.7 broken')));
    expect(await extractor.extract('pdf', minimalPdf(['still works']))).toEqual([
      expect.stringContaining('still works'),
    ]);
  });

  it('reads the RC4-encrypted NTSB reports (empty user password) of the similar corpus', async () => {
    const dir = path.join(CORPUS, '..', 'similar');
    const pages = await extractor.extract('pdf', fs.readFileSync(path.join(dir, '20071229X02007.pdf')));
    expect(pages).toHaveLength(4);
    expect(pages[1]).toContain('Pilot Information');
  });

  it('stops a parse when its signal aborts, releases the caller at once and keeps working', async () => {
    const ac = new AbortController();
    const big = fs.readFileSync(path.join(CORPUS, 'GS9_Color_Management.pdf'));
    const running = extractor.extract('pdf', big, ac.signal);
    const queuedAc = new AbortController();
    const queued = extractor.extract('pdf', big, queuedAc.signal);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    ac.abort(new Error('activity cancelled'));
    queuedAc.abort(new Error('queued job cancelled'));
    await expect(running).rejects.toThrow('activity cancelled');
    await expect(queued).rejects.toThrow('queued job cancelled');
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(await extractor.extract('pdf', minimalPdf(['after the cancel']))).toEqual([
      expect.stringContaining('after the cancel'),
    ]);
  });

  it('extracts DOCX text and rejects encrypted or broken DOCX', async () => {
    const [text] = await extractor.extract(
      'docx',
      fs.readFileSync(path.join(FIXTURES, 'travel-policy.docx')),
    );
    expect(text).toContain('The per diem for meals is forty-two euros.');
    const ole = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(64),
    ]);
    expect((await rejection(extractor.extract('docx', ole))).name).toBe('EncryptedDocument');
    expect((await rejection(extractor.extract('docx', Buffer.from('PK\u0003\u0004 nope')))).name).toBe(
      'CorruptDocument',
    );
  });

  it('extracts text, Markdown, CSV and HTML', async () => {
    expect(await extractor.extract('txt', Buffer.from('page one\fpage two'))).toEqual([
      'page one',
      'page two',
    ]);
    expect(await extractor.extract('txt', Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]))).toEqual(['hi']);
    expect(await extractor.extract('txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toEqual(['café']);
    expect(await extractor.extract('md', Buffer.from('# Title\r\n\r\nBody'))).toEqual(['# Title\n\nBody']);
    expect(await extractor.extract('csv', Buffer.from('a,b\n1,2\n'))).toEqual(['a,b\n1,2\n']);
    const [html] = await extractor.extract(
      'html',
      Buffer.from(
        '<html><head><title>Ops guide</title><style>p{}</style></head><body><p>Restart &amp; check</p>' +
          '<script>alert(1)</script><ul><li>one</li><li>two</li></ul></body></html>',
      ),
    );
    expect(html).toBe('Ops guide\nRestart & check\none\ntwo');
  });

  it('rejects binary, empty and unknown files', async () => {
    expect((await rejection(extractor.extract('txt', Buffer.from([1, 0, 2])))).name).toBe(
      'UnsupportedDocument',
    );
    expect((await rejection(extractor.extract('md', Buffer.from('  \n ')))).name).toBe('EmptyDocument');
    expect((await rejection(extractor.extract('exe', Buffer.from('MZ')))).name).toBe('UnsupportedDocument');
  });
});
