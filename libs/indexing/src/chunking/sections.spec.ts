import { chunkPages } from './chunker';
import { chunkSections, headingOf } from './sections';

describe('headingOf', () => {
  it('recognises numbered, chapter and title-cased headings', () => {
    expect(headingOf('1.5.1 Transaction Properties')).toEqual({
      text: '1.5.1 Transaction Properties',
      level: 3,
    });
    expect(headingOf('5.7.2 Linear equations and inversion')).toMatchObject({ level: 3 });
    expect(headingOf('Chapter 5: Arrays and matrices 25')).toEqual({
      text: 'Chapter 5 Arrays and matrices',
      level: 0,
    });
    expect(headingOf('Pilot Information')).toEqual({ text: 'Pilot Information' });
    expect(headingOf('Aircraft and Owner/Operator Information')).toEqual({
      text: 'Aircraft and Owner/Operator Information',
    });
  });

  it('refuses labels, sentences, code, running headers, dates and single words', () => {
    for (const line of [
      'Registration: N5921D',
      'The pilot reported a total flight experience of 2,319 hours.',
      'F = fun() ->',
      'Page 2 of 4 NYC08CA055',
      'May 3, 2026',
      'None',
      'the quick brown fox jumps',
      '1. OBJECT - TREE(S)',
    ])
      expect(headingOf(line)).toBeUndefined();
  });
});

describe('chunkSections', () => {
  it('gives each chunk the headings in force where it starts, carried across pages', () => {
    const filler = (w: string) => Array.from({ length: 150 }, (_, i) => `${w}${i}`).join(' ');
    const pages = [
      { pageNumber: 1, text: `Report Title Here\n1 Introduction\n${filler('a')}\n1.1 Scope\n${filler('b')}` },
      { pageNumber: 2, text: `Page 2 of 2\nPilot Information\n${filler('c')}` },
      { pageNumber: 3, text: filler('d') },
    ];
    const chunks = chunkPages(pages, { size: 400, overlap: 80 });
    const sections = chunkSections(pages, chunks);
    expect(sections).toHaveLength(chunks.length);
    expect(sections[0]).toBe('Report Title Here > 1 Introduction');
    const scope = chunks.findIndex((c) => c.text.includes('b10 '));
    expect(sections[scope]).toBe('1 Introduction > 1.1 Scope');
    const page2 = chunks.findIndex((c) => c.pageNumber === 2);
    expect(sections[page2]).toBe('1.1 Scope > Pilot Information');
    expect(sections[sections.length - 1]).toBe('1.1 Scope > Pilot Information');
  });
});
