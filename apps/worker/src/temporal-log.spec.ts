import { QueryFailedError } from 'typeorm';
import { temporalLogFields } from './temporal-log';

describe('temporalLogFields', () => {
  it('keeps the step and the error code of an activity failure, nothing of the query', () => {
    const driver = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: '22021',
      severity: 'ERROR',
    });
    const error = new QueryFailedError('UPDATE documents SET summary = $4', ['the filing text'], driver);
    const fields = temporalLogFields({
      activityType: 'indexSmallDocument',
      workflowId: 'document-index/7',
      attempt: 2,
      durationMs: 31,
      taskToken: 'opaque',
      error,
    });
    expect(fields).toEqual({
      activityType: 'indexSmallDocument',
      workflowId: 'document-index/7',
      attempt: 2,
      durationMs: 31,
      errName: 'QueryFailedError',
      errCode: '22021',
    });
    expect(JSON.stringify(fields)).not.toMatch(/filing text|UPDATE|summary/);
  });
});
