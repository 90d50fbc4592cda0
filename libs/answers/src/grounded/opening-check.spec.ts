import { OpeningCheck } from './opening-check';

const question = 'latex set all margins 2cm';
const extractive = 'If you want a margin of 2cm on each side, type \\usepackage[margin=2cm]{geometry}. [1]';

/** Feeds `chunks` one by one; returns what each push released and what finish released. */
function run(check: OpeningCheck, chunks: string[]) {
  const released = chunks.map((c) => check.push(c));
  return { released, rest: check.finish() };
}

describe('OpeningCheck: a local model answer whose first words share nothing with the question', () => {
  it('holds the answer until its first words are whole, then releases them at once', () => {
    const check = OpeningCheck.when(question, extractive, 4)!;
    const { released, rest } = run(check, ['Set', ' the', ' margins', ' with', ' geometry', ' options. [1]']);
    // "Set the margins with" are four words only once a space follows the fourth.
    expect(released).toEqual(['', '', '', '', 'Set the margins with geometry', ' options. [1]']);
    expect(rest).toBe('');
    expect(check.replaced).toBe(false);
  });

  it('gives the extractive answer instead when those words use no word of the question', () => {
    const check = OpeningCheck.when(question, extractive, 4)!;
    const { released, rest } = run(check, [
      'The geometry',
      ' package provides a flexible',
      ' interface to page dimensions. [1]',
      ' Margins are set by options. [2]',
    ]);
    expect(released.join('') + rest).toBe(extractive);
    expect(released.slice(0, 1)).toEqual(['']);
    expect(check.replaced).toBe(true);
    // Nothing of the model's text gets out after the verdict.
    expect(check.push(' more text')).toBe('');
    expect(check.finish(' [3]')).toBe('');
  });

  it('matches question words by stem and ignores the markers', () => {
    // "margin" is the stem of the question's "margins"; "[2]" is no word of the answer.
    const check = OpeningCheck.when(question, extractive, 3)!;
    expect(check.push('[2] A margin of ')).toBe('[2] A margin of ');
    expect(check.replaced).toBe(false);
  });

  it('judges a short answer when it ends', () => {
    const pass = OpeningCheck.when(question, extractive, 6)!;
    expect(pass.push('Use 2cm. [1]')).toBe('');
    expect(pass.finish()).toBe('Use 2cm. [1]');

    const replace = OpeningCheck.when(question, extractive, 6)!;
    expect(replace.push('Yes. [1]')).toBe('');
    expect(replace.finish()).toBe(extractive);
    expect(replace.replaced).toBe(true);
  });

  it('lets an empty answer through for the caller to handle', () => {
    const check = OpeningCheck.when(question, extractive, 6)!;
    expect(check.finish('')).toBe('');
    expect(check.replaced).toBe(false);
  });

  it('applies only when the extractive answer itself uses a word of the question', () => {
    expect(OpeningCheck.when(question, extractive)).toBeDefined();
    expect(OpeningCheck.when(question, 'Use the geometry package. [1]')).toBeUndefined();
  });
});
