import { definedTerms, derivedForms, lightStem, namesIn, normaliseText, stem, words } from './terms';

/** The full Unicode normalisation and word split, which the ASCII fast path must equal. */
const unicodeNormalised = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss');
const unicodeWords = (s: string) => unicodeNormalised(s).match(/[\p{L}\p{N}]+/gu) ?? [];

describe('definedTerms', () => {
  it('reads the names a text defines and the abbreviations it spells out', () => {
    expect([
      ...definedTerms(
        'What is the cash conversion cycle (CCC)? CCC is defined as: DIO + DSO. FCF here is defined as: CFO - capex.',
      ),
    ]).toEqual(['ccc', 'fcf']);
    expect([...definedTerms('What is the return on assets (ROA) of 3M?')]).toEqual(['roa']);
    expect(definedTerms('Which (if any) segment grew? It is defined by the board.').size).toBe(0);
  });
});

describe('normaliseText', () => {
  it('normalises case, accents and unicode', () => {
    expect(normaliseText('Größe CAFÉ ﬁle')).toBe('grosse cafe file');
    expect(words('Größe, CAFÉ-ﬁle 12')).toEqual(['grosse', 'cafe', 'file', '12']);
  });

  it('gives ASCII text what the full Unicode normalisation gives', () => {
    const ascii = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join('');
    expect(normaliseText(ascii)).toBe(unicodeNormalised(ascii));
    expect(words(ascii)).toEqual(unicodeWords(ascii));
    // seeded pseudo-random ASCII strings of every character class
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 500; n++) {
      const s = Array.from({ length: next() % 60 }, () => String.fromCharCode(next() % 128)).join('');
      expect(normaliseText(s)).toBe(unicodeNormalised(s));
      expect(words(s)).toEqual(unicodeWords(s));
    }
  });
});

describe('lightStem', () => {
  it('strips common English suffixes', () => {
    expect(lightStem('margins')).toBe('margin');
    expect(lightStem('settings')).toBe('sett');
    expect(lightStem('libraries')).toBe('library');
    expect(lightStem('run')).toBe('run');
  });
});

describe('derivedForms', () => {
  it('relates a stem to the stem plus a derivational ending, either way round', () => {
    expect(derivedForms(stem('depart'), stem('departure'))).toBe(true);
    expect(derivedForms(stem('departure'), stem('departed'))).toBe(true);
    expect(derivedForms(stem('inspect'), stem('inspector'))).toBe(true);
    expect(derivedForms(stem('encrypt'), stem('encryption'))).toBe(true);
  });

  it('does not relate short bases, other endings or unrelated words', () => {
    expect(derivedForms('port', 'portal')).toBe(false);
    expect(derivedForms('margin', 'marginalia')).toBe(false);
    expect(derivedForms('depart', 'department')).toBe(false);
    expect(derivedForms('import', 'important')).toBe(false);
    expect(derivedForms('table', 'tablet')).toBe(false);
    expect(derivedForms('depart', 'depart')).toBe(false);
  });
});

describe('namesIn', () => {
  it('reads the words a question capitalises inside a sentence, lower-cased', () => {
    expect([
      ...namesIn("What was the pilot's total flight time in the Cessna 172 accident near Chandler, Arizona?"),
    ]).toEqual(['cessna', 'chandler', 'arizona']);
    expect([...namesIn('When was LilyPond 2.24.1 released?')]).toEqual(['lilypond']);
  });

  it('leaves out sentence starts, acronyms, short words and words inside other words', () => {
    expect([...namesIn('Where does the FHS say it? Give a response in USD. Then stop: Now.')]).toEqual([]);
    expect([...namesIn('the non-Debian e-Mail of O’Brien by Al')]).toEqual([]);
    expect([...namesIn('Is McDonald’s listed?')]).toEqual(['mcdonald']);
  });
});
