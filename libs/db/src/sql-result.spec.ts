import { isUniqueViolation, rowsOf } from './sql-result';

describe('rowsOf', () => {
  it('takes the rows of an UPDATE ... RETURNING result ([rows, affected])', () => {
    expect(rowsOf<{ id: number }>([[{ id: 1 }, { id: 2 }], 2])).toEqual([{ id: 1 }, { id: 2 }]);
    expect(rowsOf([[], 0])).toEqual([]);
  });

  it('returns SELECT rows as they are, also two rows that look like a pair', () => {
    expect(rowsOf([{ id: 1 }])).toEqual([{ id: 1 }]);
    const twoRows = [{ a: 1 }, { b: 2 }];
    expect(rowsOf(twoRows)).toBe(twoRows);
  });
});

describe('isUniqueViolation', () => {
  it('knows SQLSTATE 23505 on the error or on its driverError', () => {
    expect(isUniqueViolation({ code: '23505' })).toBe(true);
    expect(isUniqueViolation({ driverError: { code: '23505' } })).toBe(true);
    expect(isUniqueViolation({ code: '23503' })).toBe(false);
    expect(isUniqueViolation(new Error('boom'))).toBe(false);
    expect(isUniqueViolation(undefined)).toBe(false);
  });

  it('checks the constraint name when one is asked for', () => {
    const err = { code: '23505', driverError: { code: '23505', constraint: 'one_open_run' } };
    expect(isUniqueViolation(err, 'one_open_run')).toBe(true);
    expect(isUniqueViolation(err, 'users_email')).toBe(false);
    expect(isUniqueViolation({ code: '23505', constraint: 'users_email' }, 'users_email')).toBe(true);
  });
});
