import { definedTerms, derivedForms, lightStem, normaliseText, stem } from './terms';

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
