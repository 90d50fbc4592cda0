import { validateSync } from 'class-validator';
import { DOCSET_NAME_MAX, docsetNameProblem, IsDocsetName } from './docset-name';

describe('docset names', () => {
  it('counts Unicode code points, not UTF-16 units', () => {
    expect(docsetNameProblem('📚'.repeat(DOCSET_NAME_MAX))).toBeUndefined();
    expect(docsetNameProblem('a'.repeat(DOCSET_NAME_MAX))).toBeUndefined();
    expect(docsetNameProblem('📚'.repeat(DOCSET_NAME_MAX + 1))).toBe('must be at most 200 characters');
    // A variation selector is a code point of its own.
    expect(docsetNameProblem('❤️'.repeat(100))).toBeUndefined();
    expect(docsetNameProblem('❤️'.repeat(101))).toMatch(/at most 200/);
  });

  it('names the rule that failed', () => {
    expect(docsetNameProblem(undefined)).toBe('is required');
    expect(docsetNameProblem(null)).toBe('is required');
    expect(docsetNameProblem(7)).toBe('must be a string');
    expect(docsetNameProblem('')).toBe('must not be empty');
    expect(docsetNameProblem('\ud800x')).toMatch(/unpaired surrogate/);
    expect(docsetNameProblem('x\udc00')).toMatch(/unpaired surrogate/);
    expect(docsetNameProblem('a\tb')).toBe('must not contain control characters');
    expect(docsetNameProblem('a\u007fb')).toBe('must not contain control characters');
    expect(docsetNameProblem(' a')).toBe('must not start or end with whitespace');
    expect(docsetNameProblem('a\u00a0')).toBe('must not start or end with whitespace');
    expect(docsetNameProblem('Team handbooks / 2024 (FR) é')).toBeUndefined();
  });

  it('the DTO decorator applies the same rules, per element with `each`', () => {
    class One {
      @IsDocsetName() name: unknown;
    }
    class Many {
      @IsDocsetName({ each: true }) names: unknown;
    }
    const one = Object.assign(new One(), { name: '📚'.repeat(201) });
    expect(validateSync(one)[0].constraints).toEqual({ isDocsetName: 'name must be at most 200 characters' });
    const many = Object.assign(new Many(), { names: ['ok', ' bad'] });
    expect(validateSync(many)[0].constraints).toEqual({
      isDocsetName: 'names must hold valid docset names: each must not start or end with whitespace',
    });
    expect(validateSync(Object.assign(new Many(), { names: ['ok', '📚'] }))).toEqual([]);
  });
});
