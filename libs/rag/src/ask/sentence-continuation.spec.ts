import { startsMidSentence } from '@docqa/answers';
import { chunkId, nextChunkId, previousChunkId, StoredChunk } from '@docqa/search';
import {
  endsMidSentence,
  MAX_CONTINUATION,
  sentenceContinuation,
  sentenceStart,
} from './sentence-continuation';

function stored(c: { chunkIndex: number; pageNumber: number; text: string }, generation = 0): StoredChunk {
  return {
    id: chunkId('doc-1', c.chunkIndex, generation),
    accountId: 1,
    docSetName: 'manuals',
    documentId: 'doc-1',
    fileName: 'guide.pdf',
    pageNumber: String(c.pageNumber),
    sourceType: 'S3',
    sourceId: 'guide.pdf',
    chunkIndex: c.chunkIndex,
    text: c.text,
  };
}

/**
 * Overlapping windows of one page cut at spaces, as indexing's chunker makes them (libs/rag may
 * not import libs/indexing; test/ask/ask-answers.e2e-spec.ts runs the real chunker through /ask).
 */
function chunkPages(pages: Array<{ pageNumber: number; text: string }>, size = 1200, overlap = 240) {
  const out: Array<{ chunkIndex: number; pageNumber: number; text: string }> = [];
  for (const { pageNumber, text } of pages) {
    for (let start = 0; start < text.length;) {
      let end = Math.min(text.length, start + size);
      if (end < text.length) end = Math.max(text.lastIndexOf(' ', end), start + size / 2);
      out.push({ chunkIndex: out.length, pageNumber, text: text.slice(start, end).trim() });
      if (end >= text.length) break;
      const back = text.lastIndexOf(' ', end - overlap);
      start = back > start ? back + 1 : end - overlap;
    }
  }
  return out;
}

const filler = (n: number) =>
  Array.from({ length: n }, (_, i) => `Sentence ${i} of the manual explains one more setting.`).join('\n');

describe('sentenceContinuation', () => {
  it('completes the last sentence of a chunk from the overlapping chunk of the same page', () => {
    const long =
      'If the owner and user passwords are set to the same string when encrypting\nthe PDF file, the file is opened with full control.';
    let cutInLong = 0;
    let completed = 0;
    // Pages of different lengths put the chunk boundaries at different places in the text.
    for (let n = 10; n < 30; n++) {
      const text = `${filler(n)}\n${long}\n${filler(20)}`;
      const chunks = chunkPages([{ pageNumber: 58, text }]).map((c) => stored(c));
      for (let i = 0; i + 1 < chunks.length; i++) {
        const chunk = chunks[i];
        const rest = sentenceContinuation(chunk, chunks[i + 1]);
        if (!rest) {
          // Left alone only where the chunk ends its sentence or only a word or two of it.
          expect(!endsMidSentence(chunk.text) || / \d+( of)?$/.test(chunk.text)).toBe(true);
          continue;
        }
        // Chunk plus continuation read as the page does, up to the end of that sentence only.
        const whole = chunk.text + rest;
        expect(text.includes(whole)).toBe(true);
        expect(/[.]$/.test(whole) && !/[.]$/.test(chunk.text)).toBe(true);
        expect(/^(\n|$)/.test(text.slice(text.indexOf(whole) + whole.length))).toBe(true);
        completed++;
        if (chunk.text.includes('when encrypting') && !chunk.text.includes('full control')) {
          expect(whole.endsWith('with full control.')).toBe(true);
          cutInLong++;
        }
      }
    }
    expect(completed).toBeGreaterThan(10);
    expect(cutInLong).toBeGreaterThan(0);
  });

  it('continues over a page break only where the next page goes on in lower case', () => {
    const end = stored({ chunkIndex: 4, pageNumber: 7, text: 'The margins are set by the package when the' });
    const goesOn = stored({
      chunkIndex: 5,
      pageNumber: 8,
      text: 'class is loaded. Then the body is placed.',
    });
    expect(sentenceContinuation(end, goesOn)).toBe(' class is loaded.');
    const heading = stored({ chunkIndex: 5, pageNumber: 8, text: 'Chapter 3. Fonts are chosen next.' });
    expect(sentenceContinuation(end, heading)).toBe('');
  });

  it('adds nothing to a chunk that ends its sentence, to a chunk that is not the next one, or past the bound', () => {
    const whole = stored({ chunkIndex: 1, pageNumber: 2, text: 'Margins are 2 cm.' });
    const next = stored({ chunkIndex: 2, pageNumber: 3, text: 'and more text.' });
    expect(sentenceContinuation(whole, next)).toBe('');
    const cut = stored({ chunkIndex: 1, pageNumber: 2, text: 'Margins are set by' });
    expect(sentenceContinuation(cut, stored({ chunkIndex: 3, pageNumber: 3, text: 'the class.' }))).toBe('');
    const long = stored({
      chunkIndex: 2,
      pageNumber: 3,
      text: `the ${'very '.repeat(MAX_CONTINUATION / 5)}long class.`,
    });
    expect(sentenceContinuation(cut, long)).toBe('');
    // Code, tables and formulas have no sentence to finish; a word or two is no sentence yet.
    const code = stored({ chunkIndex: 1, pageNumber: 2, text: 'Set it so:\n\\unit[per-mode =' });
    expect(
      sentenceContinuation(
        code,
        stored({ chunkIndex: 2, pageNumber: 2, text: 'fraction]{\\metre} is read.' }),
      ),
    ).toBe('');
    const table = stored({
      chunkIndex: 1,
      pageNumber: 2,
      text: 'Units are shown.\ncd kW−1 h−1\ncd kW−1 h−1',
    });
    expect(
      sentenceContinuation(table, stored({ chunkIndex: 2, pageNumber: 3, text: '9.12 Creating a column.' })),
    ).toBe('');
    const twoWords = stored({
      chunkIndex: 1,
      pageNumber: 2,
      text: 'An opening sentence of this page ends here. The geometry',
    });
    const after = stored({
      chunkIndex: 2,
      pageNumber: 2,
      text: 'opening sentence of this page ends here. The geometry package sets them.',
    });
    expect(sentenceContinuation(twoWords, after)).toBe('');
    const threeWords = {
      ...twoWords,
      text: `${twoWords.text.slice(0, -'The geometry'.length)}So the geometry`,
    };
    const afterThree = {
      ...after,
      text: 'opening sentence of this page ends here. So the geometry package sets them.',
    };
    expect(sentenceContinuation(threeWords, afterThree)).toBe(' package sets them.');
  });
});

describe('sentenceStart', () => {
  it('gives a chunk that starts mid-sentence the start of that sentence from the chunk before it', () => {
    const long =
      'If the owner and user passwords are set to the same string when encrypting\nthe PDF file, the file is opened with full control.';
    let started = 0;
    let startedInLong = 0;
    for (let n = 10; n < 30; n++) {
      const text = `${filler(n)}\n${long}\n${filler(20)}`;
      const chunks = chunkPages([{ pageNumber: 58, text }]).map((c) => stored(c));
      for (let i = 1; i < chunks.length; i++) {
        const chunk = chunks[i];
        const head = sentenceStart(chunks[i - 1], chunk);
        if (!head) {
          // Left alone only where the chunk starts a sentence (or a capitalised word of it).
          expect(startsMidSentence(chunk.text)).toBe(false);
          continue;
        }
        // Head plus chunk read as the page does, from the start of that sentence.
        const whole = head + chunk.text;
        const at = text.indexOf(whole);
        expect(at).toBeGreaterThan(0);
        expect(/[.]\n$/.test(text.slice(0, at))).toBe(true);
        expect(/^[A-Z]/.test(head)).toBe(true);
        started++;
        if (head.startsWith('If the owner')) startedInLong++;
      }
    }
    expect(started).toBeGreaterThan(10);
    expect(startedInLong).toBeGreaterThan(0);
  });

  it('reaches back over a page break only onto a sentence the previous page left open', () => {
    const open = stored({
      chunkIndex: 4,
      pageNumber: 7,
      text: 'Fonts are chosen first. The margins are set by the package when the',
    });
    const goesOn = stored({
      chunkIndex: 5,
      pageNumber: 8,
      text: 'class is loaded. Then the body is placed.',
    });
    expect(sentenceStart(open, goesOn)).toBe('The margins are set by the package when the ');
    const closed = stored({ chunkIndex: 4, pageNumber: 7, text: 'The margins are set by the package.' });
    expect(sentenceStart(closed, goesOn)).toBe('');
    const capital = stored({
      chunkIndex: 5,
      pageNumber: 8,
      text: 'Class options are read. Then the body is placed.',
    });
    expect(sentenceStart(open, capital)).toBe('');
  });

  it('adds nothing to a chunk that is not the next one, to code, or past the bound', () => {
    const before = stored({
      chunkIndex: 1,
      pageNumber: 2,
      text: 'Fonts are chosen first. The margins are set by',
    });
    expect(sentenceStart(before, stored({ chunkIndex: 3, pageNumber: 3, text: 'the class file.' }))).toBe('');
    const long = stored({
      chunkIndex: 1,
      pageNumber: 2,
      text: `Done. The ${'very '.repeat(MAX_CONTINUATION / 5)}long`,
    });
    expect(sentenceStart(long, stored({ chunkIndex: 2, pageNumber: 3, text: 'class is read.' }))).toBe('');
    const code = stored({ chunkIndex: 1, pageNumber: 2, text: 'Set it so:\n\\unit[per-mode =' });
    expect(
      sentenceStart(code, stored({ chunkIndex: 2, pageNumber: 3, text: 'fraction]{\\metre} = 1;' })),
    ).toBe('');
  });
});

describe('nextChunkId', () => {
  it('names the next chunk of the same generation, and nothing for an id of another form', () => {
    expect(nextChunkId(stored({ chunkIndex: 3, pageNumber: 1, text: 'x' }))).toBe('doc-1:4');
    expect(nextChunkId(stored({ chunkIndex: 3, pageNumber: 1, text: 'x' }, 2))).toBe('doc-1:2:4');
    expect(nextChunkId({ id: 'other:3', documentId: 'doc-1', chunkIndex: 3 })).toBeUndefined();
    expect(nextChunkId({ id: 'doc-1:x:3', documentId: 'doc-1', chunkIndex: 3 })).toBeUndefined();
  });

  it('previousChunkId names the chunk before, and nothing before the first', () => {
    expect(previousChunkId(stored({ chunkIndex: 3, pageNumber: 1, text: 'x' }))).toBe('doc-1:2');
    expect(previousChunkId(stored({ chunkIndex: 3, pageNumber: 1, text: 'x' }, 2))).toBe('doc-1:2:2');
    expect(previousChunkId(stored({ chunkIndex: 0, pageNumber: 1, text: 'x' }))).toBeUndefined();
    expect(previousChunkId({ id: 'other:3', documentId: 'doc-1', chunkIndex: 3 })).toBeUndefined();
  });
});
