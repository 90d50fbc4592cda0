import { QueryFailedError } from 'typeorm';
import { loggableError, withoutSql } from './loggable-error';

describe('loggableError', () => {
  it('keeps a failed query to its name and SQLSTATE: no SQL, parameter, message or detail', () => {
    const driver = Object.assign(
      new Error('new row for relation "document_pages" violates check constraint'),
      {
        code: '23514',
        severity: 'ERROR',
        detail: 'Failing row contains (42, 1, confidential page text).',
      },
    );
    const err = new QueryFailedError(
      'INSERT INTO document_pages VALUES ($1, $2)',
      ['confidential page text'],
      driver,
    );
    expect(loggableError(err)).toEqual({ errName: 'QueryFailedError', errCode: '23514' });
    // the driver's own error, as pg throws it outside TypeORM
    expect(loggableError(driver)).toEqual({ errName: 'Error', errCode: '23514' });
  });

  it('keeps other errors to name, code and a message without SQL', () => {
    expect(loggableError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toEqual(
      {
        errName: 'Error',
        errCode: 'ECONNREFUSED',
        errMessage: 'connect ECONNREFUSED',
      },
    );
    expect(withoutSql('failed: SELECT secret FROM t WHERE x = 1')).toBe('failed: SELECT …');
    expect(loggableError('text')).toEqual({ errName: 'string', errMessage: 'text' });
  });
});
