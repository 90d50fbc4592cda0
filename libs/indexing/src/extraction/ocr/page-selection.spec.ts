import { describeOcrProgress, pagesWithoutText } from './page-selection';

describe('pagesWithoutText', () => {
  it('selects only the pages whose text layer has no letter or digit, by 1-based page number', () => {
    expect(pagesWithoutText(['Typed page one.', '', 'Page three.', '  \n\t ', '. - _ |', 'x'])).toEqual([
      2, 4, 5,
    ]);
  });

  it('selects nothing in a born-digital PDF and every page of a fully scanned one', () => {
    expect(pagesWithoutText(['Intro', 'Chapter 2', '42'])).toEqual([]);
    expect(pagesWithoutText(['', ' ', '\f'])).toEqual([1, 2, 3]);
    expect(pagesWithoutText([])).toEqual([]);
  });

  it('counts letters and digits of any script as text', () => {
    expect(pagesWithoutText(['Übersicht', 'сводка', '東京', '٣', '…'])).toEqual([5]);
  });

  it('describes progress with the physical page number', () => {
    expect(describeOcrProgress({ pageNumber: 7, index: 2, total: 5 })).toBe(
      'OCR: reading page 7 (2 of 5 pages without text)',
    );
  });
});
