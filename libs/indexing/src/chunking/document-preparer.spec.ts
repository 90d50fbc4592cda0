import { watchEventLoop, EventLoopStall } from '@docqa/common';
import { prepareDocument } from './document-chunks';
import { DocumentPreparer } from './document-preparer';

/** A long report-like document: headings, running lines, names, dates, hyphenated words. */
function longDocument(pages: number) {
  return {
    fileName: 'ACME-annual-report-2024.pdf',
    title: 'ACME Holdings Annual Report 2024',
    pages: Array.from({ length: pages }, (_, p) => ({
      pageNumber: p + 1,
      text:
        `ACME Holdings Annual Report 2024\n${p + 1}. Results of Region ${p % 7}\n` +
        Array.from(
          { length: 40 },
          (_, i) =>
            `On March ${(i % 28) + 1}, 2024 Jane Smith of ACME Holdings met Robert Jones in Springfield about ` +
            `contract ${p}-${i}; revenue rose ${i % 9} percent against the pre-\nvious quarter and the board ap-\nproved it.`,
        ).join('\n') +
        `\nPage ${p + 1} of ${pages}`,
    })),
  };
}

describe('DocumentPreparer (prepareDocument in a thread)', () => {
  const preparer = new DocumentPreparer();
  afterAll(() => preparer.close());

  it('prepares a document exactly as prepareDocument does in the caller', async () => {
    const doc = longDocument(12);
    const inThread = await preparer.prepare(doc);
    expect(inThread).toEqual(prepareDocument(doc));
    expect(inThread.chunks.length).toBeGreaterThan(12);
    expect(inThread.context.title).toContain('ACME Holdings Annual Report 2024');
  });

  it("leaves the caller's event loop free while it prepares a long document", async () => {
    const doc = longDocument(400);
    const inCaller: EventLoopStall[] = [];
    let watch = watchEventLoop(150, (s) => inCaller.push(s), 10);
    await new Promise((r) => setTimeout(r, 30));
    prepareDocument(doc);
    await new Promise((r) => setTimeout(r, 30));
    watch.stop();
    // Long enough to matter when it runs on the caller's loop...
    expect(inCaller.filter((s) => s.busy > 0.5).length).toBeGreaterThan(0);

    const inThread: EventLoopStall[] = [];
    watch = watchEventLoop(150, (s) => inThread.push(s), 10);
    try {
      await preparer.prepare(doc);
    } finally {
      watch.stop();
    }
    // ...and the caller's loop keeps running while the thread does it (the reply's structured
    // clone is the caller's only share).
    expect(inThread.filter((s) => s.busy > 0.5)).toEqual([]);
  });

  it("fails a job with the thread's error and keeps serving; after close it starts again", async () => {
    await expect(preparer.prepare({ fileName: 'x.pdf', pages: null as unknown as [] })).rejects.toThrow(/./);
    expect((await preparer.prepare(longDocument(1))).chunks.length).toBeGreaterThan(0);
    await preparer.close();
    expect((await preparer.prepare(longDocument(1))).chunks.length).toBeGreaterThan(0);
  });
});
