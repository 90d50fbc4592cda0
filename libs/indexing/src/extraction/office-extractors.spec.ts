import JSZip from 'jszip';
import { pdfWithNulInText } from '../../../../test/support/control-char-pdf';
import {
  encryptedOfficeFile,
  makeDeck,
  makeHandWrittenDeck,
  makeWorkbook,
} from '../../../../test/support/office';
import { DocumentExtractor } from './extractor';
import { cleanExtractedText } from './extracted-text';
import { PdfExtractor } from './pdf-extractor';
import { XLSX_MAX_CELLS_PER_SHEET } from './xlsx-extractor';

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: Error) => err,
  );

describe('Office and control-character extraction', () => {
  const pdf = new PdfExtractor({ threads: 1, timeoutMs: 20_000, maxHeapMb: 256 });
  const extractor = new DocumentExtractor(pdf);
  afterAll(() => pdf.onModuleDestroy());

  it('reads a generated deck: a page per slide with its text boxes, table and notes', async () => {
    const deck = await makeDeck([
      {
        title: 'Roadmap 2025',
        boxes: [{ text: 'Launch in Lisbon', x: 0.5, y: 1.5 }],
        notes: 'Say the date twice.',
      },
      {
        title: 'Budget',
        table: [
          ['Item', 'Cost'],
          ['Servers', '12,000 EUR'],
        ],
      },
    ]);
    const pages = await extractor.extract('pptx', deck);
    expect(pages).toHaveLength(2);
    expect(pages[0]).toMatch(/^Roadmap 2025\nLaunch in Lisbon\n\nSpeaker notes:\nSay the date twice\.$/);
    expect(pages[1]).toContain('Budget');
    expect(pages[1]).toContain('Item | Cost\nServers | 12,000 EUR');
    expect(pages[1]).not.toContain('Speaker notes');
  });

  it('reads shapes in reading order: title first, then top to bottom, groups in place', async () => {
    const pages = await extractor.extract('pptx', await makeHandWrittenDeck());
    expect(pages).toEqual([
      [
        'Quarterly review',
        'Top left & first',
        'Top right',
        'Group left\nGroup right',
        'Bottom line',
        '',
        'Speaker notes:',
        'Mention the Oslo office.',
      ].join('\n'),
      'Second',
    ]);
  });

  it('reads a workbook: a page per visible sheet, rows named by their headers, cells as displayed', async () => {
    const book = makeWorkbook([
      {
        name: 'Sales',
        rows: [
          ['Region', 'Revenue', 'Closed on', 'Doubled', null],
          [
            'North',
            { t: 'n', v: 1234.5, z: '#,##0.00' },
            { t: 'n', v: 45000, z: 'yyyy-mm-dd' },
            { t: 'n', f: 'B2*2', v: 2469 },
          ],
          ['South', 99, null, null, 'note'],
        ],
      },
      { name: 'Secret', rows: [['Code'], ['hidden-value']], hidden: true },
      { name: 'Empty', rows: [] },
      {
        name: 'Staff',
        rows: [
          ['Name', 'Office'],
          ['Ada', 'Oslo'],
        ],
      },
      { name: 'Headers only', rows: [['Name', 'Office']] },
    ]);
    const pages = await extractor.extract('xlsx', book);
    expect(pages).toEqual([
      [
        'Sales',
        'Region: North | Revenue: 1,234.50 | Closed on: 2023-03-15 | Doubled: 2469',
        'Region: South | Revenue: 99 | Column E: note',
      ].join('\n'),
      '',
      'Staff\nName: Ada | Office: Oslo',
      'Headers only\nName | Office',
    ]);
    expect(pages.join('\n')).not.toContain('hidden-value');
  });

  it('refuses a sheet over the cell cap, naming the sheet and the cap', async () => {
    const rows = Array.from({ length: XLSX_MAX_CELLS_PER_SHEET / 2 + 1 }, (_, i) => [i, i]);
    const book = makeWorkbook([{ name: 'Export', rows }]);
    // read in a thread: the event loop keeps ticking while SheetJS parses for seconds
    let last = Date.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      longestGap = Math.max(longestGap, Date.now() - last);
      last = Date.now();
    }, 10);
    const err = await rejection(extractor.extract('xlsx', book)).finally(() => clearInterval(ticker));
    expect(longestGap).toBeLessThan(1000);
    expect(err.name).toBe('UnsupportedDocument');
    expect(err.message).toBe(
      `Sheet "Export" has ${XLSX_MAX_CELLS_PER_SHEET + 2} filled cells, more than the ${XLSX_MAX_CELLS_PER_SHEET} cells per sheet that are indexed`,
    );
  });

  it('stops reading when its signal aborts', async () => {
    const ac = new AbortController();
    const running = extractor.extract('xlsx', makeWorkbook([{ name: 'S', rows: [['a'], ['b']] }]), ac.signal);
    ac.abort(new Error('activity cancelled'));
    await expect(running).rejects.toThrow('activity cancelled');
  });

  it('rejects encrypted and corrupt decks and workbooks with a readable reason', async () => {
    for (const type of ['pptx', 'xlsx']) {
      const encrypted = await rejection(extractor.extract(type, encryptedOfficeFile()));
      expect(encrypted).toMatchObject({
        name: 'EncryptedDocument',
        message: expect.stringContaining('password'),
      });
      const notZip = await rejection(extractor.extract(type, Buffer.from('just some text, not a package')));
      expect(notZip).toMatchObject({
        name: 'CorruptDocument',
        message: `The ${type.toUpperCase()} file is not a valid Office Open XML package`,
      });
      const truncated = await rejection(extractor.extract(type, Buffer.from('PK\u0003\u0004 truncated')));
      expect(truncated.name).toBe('CorruptDocument');
      expect(truncated.message).toMatch(new RegExp(`^The ${type.toUpperCase()} file could not be read \\(`));
    }
    const zip = new JSZip();
    zip.file('word/document.xml', '<w:document/>');
    const docxAsDeck = await rejection(
      extractor.extract('pptx', await zip.generateAsync({ type: 'nodebuffer' })),
    );
    expect(docxAsDeck).toMatchObject({
      name: 'CorruptDocument',
      message: expect.stringContaining('not a PowerPoint presentation'),
    });
  });

  it('removes NUL and other controls from a PDF text layer and title, in the one cleaning', async () => {
    const raw = await pdf.extractContent(
      pdfWithNulInText('Revenue~grew by 12 percent', 'Annual\u0000 report'),
    );
    expect(raw.pages[0]).toContain('Revenue\u0000grew'); // what PDF.js yields for this font
    const doc = await extractor.extractDocument(
      'pdf',
      pdfWithNulInText('Revenue~grew by 12 percent', 'Annual\u0000 report'),
    );
    expect(doc.pages[0]).toContain('Revenuegrew by 12 percent');
    expect(doc.title).toBe('Annual report');
    expect(JSON.stringify(doc)).not.toMatch(/\\u00(0|1)/);
  });

  it('cleans controls and unpaired surrogates, keeping tabs and line breaks', () => {
    expect(cleanExtractedText('a\u0000b\u0001c\td\ne\u000bf\u000cg\u0085h\u007f\ud800i\ud83d\ude00')).toBe(
      'abc\td\ne\nf\ngh\ufffdi\ud83d\ude00',
    );
  });
});
