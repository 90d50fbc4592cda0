import { prepareDocument } from './document-chunks';
import { joinHyphenatedWords } from './hyphenation';

describe('joinHyphenatedWords', () => {
  it('joins a word broken at a line end when the document writes it whole elsewhere', () => {
    const pages = [
      { pageNumber: 1, text: 'The paper dimen-\nsions are set by the  layout.\nSee the Exam-\nple below.' },
      { pageNumber: 2, text: 'Both dimensions are lengths. An example:' },
    ];
    expect(joinHyphenatedWords(pages)).toEqual([
      { pageNumber: 1, text: 'The paper dimensions are set by the layout.\nSee the Example below.' },
      pages[1],
    ]);
  });

  it('keeps the hyphen of a compound the document never writes joined, and hyphens inside a line', () => {
    const pages = [{ text: 'A user-\ndefined command, a user-defined key.\nNon-\nASCII input.' }];
    expect(joinHyphenatedWords(pages)).toEqual(pages);
  });

  it('leaves a document without line-end hyphens as it was', () => {
    const pages = [{ text: 'plain  text\r\nno breaks' }];
    expect(joinHyphenatedWords(pages)[0]).toBe(pages[0]);
  });
});

describe('prepareDocument', () => {
  it('indexes joined words in the chunk text', () => {
    const { chunks } = prepareDocument({
      fileName: 'geometry.pdf',
      pages: [{ pageNumber: 1, text: 'Set the margins by hand.\nThe mar-\ngins default to 1in.' }],
    });
    expect(chunks[0].text).toBe('Set the margins by hand.\nThe margins default to 1in.');
    expect(chunks[0].embeddingText).toContain('The margins default');
  });
});
