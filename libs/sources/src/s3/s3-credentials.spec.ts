import { DomainError, ErrorCode } from '@docqa/common';
import { parseS3Credentials } from './s3-credentials';

const keys = { accessKeyId: 'AKIA1', secretAccessKey: 'secret', bucket: 'docs-bucket' };

function fails(raw: unknown, serverBucket?: string): DomainError {
  try {
    parseS3Credentials(raw, serverBucket);
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('parseS3Credentials', () => {
  it('accepts keys with bucket, prefix, region and session token', () => {
    expect(
      parseS3Credentials({ ...keys, prefix: 'a/b/', region: 'eu-west-1', sessionToken: 't' }, undefined),
    ).toEqual({
      ...keys,
      prefix: 'a/b/',
      region: 'eu-west-1',
      sessionToken: 't',
    });
  });

  it.each(['endpoint', 'host', 'url', 'forcePathStyle'])(
    'rejects %s: endpoints are server configuration',
    (f) => {
      const err = fails({ ...keys, [f]: 'http://169.254.169.254' });
      expect(err.code).toBe(ErrorCode.VALIDATION_ERROR);
      expect(err.context.field).toBe(`credentials.${f}`);
      expect(err.message).toContain('server configuration');
    },
  );

  it('rejects unknown fields, wrong types, bad bucket names and half a key pair', () => {
    expect(fails({ ...keys, extra: 1 }).context.field).toBe('credentials.extra');
    expect(fails({ ...keys, bucket: 7 }).context.field).toBe('credentials.bucket');
    expect(fails({ ...keys, bucket: 'Not_A_Bucket' }).context.field).toBe('credentials.bucket');
    expect(fails({ accessKeyId: 'a', bucket: 'abc' }).context.field).toBe('credentials.secretAccessKey');
    expect(fails({ ...keys, prefix: 'a\u0000b' }).context.field).toBe('credentials.prefix');
    expect(fails('nope').context.field).toBe('credentials');
  });

  it('omitted credentials use the server bucket, and only that bucket', () => {
    expect(parseS3Credentials(undefined, 'server-bucket')).toEqual({ bucket: 'server-bucket', prefix: '' });
    expect(parseS3Credentials({ prefix: 'x/' }, 'server-bucket')).toEqual({
      bucket: 'server-bucket',
      prefix: 'x/',
    });
    expect(fails({ bucket: 'other-bucket' }, 'server-bucket').code).toBe(ErrorCode.FORBIDDEN);
    expect(fails(undefined, undefined).code).toBe(ErrorCode.VALIDATION_ERROR);
  });
});
