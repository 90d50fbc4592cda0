import { prepareDocument } from './document-chunks';
import { runningKey, withoutRunningLines } from './running-lines';

// Body lines differ by more than their numbers, as real pages do.
const TOPICS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
const body = (i: number) => `Body text about ${TOPICS[i]}.\nMore on ${TOPICS[i]} in a second line.`;

describe('withoutRunningLines', () => {
  it('removes headers and footers repeated at page edges, digits aside', () => {
    const pages = [1, 2, 3, 4].map((i) => ({
      pageNumber: i,
      text: `Chapter 7: R Miscellanea ${28 + i}\n${body(i)}\nPage ${i} of 4 NYC08CA055`,
    }));
    expect(withoutRunningLines(pages)).toEqual(pages.map((p) => ({ ...p, text: body(p.pageNumber) })));
  });

  it('removes page numbers, roman or arabic, and a header of two lines', () => {
    const pages = ['i', 'ii', 'iii', '1', '2', '3'].map((n, i) => ({
      text: `User Guide\nChapter ${i}\n${body(i)}\n${n}`,
    }));
    expect(withoutRunningLines(pages).map((p) => p.text)).toEqual(pages.map((_, i) => body(i)));
  });

  it('keeps lines that repeat on fewer pages, or inside the body, and short documents whole', () => {
    const table = 'Date Amount Description';
    const pages = [1, 2, 3, 4].map((i) => ({
      text: `${i < 3 ? 'Summary' : `Heading ${TOPICS[i]}`}\nIntro on ${TOPICS[i]}\n${table}\nrow ${i}\nEnd of ${TOPICS[i]}`,
    }));
    // `Summary` opens 2 pages only; the table header is not at an edge of any page.
    expect(withoutRunningLines(pages)).toEqual(pages);
    const two = [{ text: 'Header\nA' }, { text: 'Header\nB' }];
    expect(withoutRunningLines(two)).toEqual(two);
  });

  it('keeps a line whose numbers change other than as a page number does', () => {
    // A subtotal at every page's foot has a running line's shape, not its numbers.
    const totals = ['Subtotal 1,204 9,877', 'Subtotal 3,410 2,005', 'Subtotal 2,950 7,130'];
    const pages = totals.map((t, i) => ({ text: `${body(i)}\n${t}` }));
    expect(withoutRunningLines(pages)).toEqual(pages);
    // One number that does not grow page by page is no page number either.
    const counts = [5, 3, 8].map((n, i) => ({ text: `${body(i)}\nItems: ${n}` }));
    expect(withoutRunningLines(counts)).toEqual(counts);
  });

  it('never empties a page', () => {
    const pages = [1, 2, 3].map((i) => ({ text: `Ericsson AB | ${i}` }));
    expect(withoutRunningLines(pages)).toEqual(pages);
  });

  it('keys a line by its words, not its numbers', () => {
    expect(runningKey('2 | Ericsson AB, All Rights Reserved: EUnit')).toBe(
      '# | ericsson ab, all rights reserved: eunit',
    );
    expect(runningKey(' xiv ')).toBe('%');
  });
});

describe('prepareDocument', () => {
  it('chunks the pages without their running lines, and still draws the context from them', () => {
    const pages = [1, 2, 3].map((i) => ({
      pageNumber: i,
      text: `Acme Widgets Quarterly Report | ${i}\n${body(i)}`,
    }));
    const { context, chunks } = prepareDocument({ fileName: 'q3.pdf', title: null, pages });
    expect(chunks.map((c) => c.text)).toEqual([1, 2, 3].map(body));
    expect(context.title).toContain('Acme Widgets Quarterly Report');
  });
});
