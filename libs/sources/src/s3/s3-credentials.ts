import { DomainError } from '@docqa/common';
import { credentialsObject, optionalPlainString } from '../credential-fields';

/** Validated S3 source settings of one request (or of the server-configured bucket). */
export interface S3Credentials {
  bucket: string;
  prefix: string;
  region?: string;
  /** Absent: the server's own identity (default AWS credential chain) on S3_BUCKET. */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
}

/** Every field a request may send for an S3 source; anything else (endpoint, host, ...) is a 400. */
const ALLOWED = ['accessKeyId', 'secretAccessKey', 'sessionToken', 'region', 'bucket', 'prefix'] as const;
const SERVER_CONFIG_FIELDS = new Set(['endpoint', 'host', 'hostname', 'url', 'port', 'forcePathStyle']);
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9][a-z0-9-]{0,30}[a-z0-9]$/;

/**
 * `credentials` of an S3 index request: `{ accessKeyId, secretAccessKey, sessionToken?, region?,
 * bucket, prefix? }`, or omitted (or only `{ prefix }`) when the server has S3_BUCKET. The endpoint
 * is server configuration (S3_ENDPOINT) and can never come from a request (no SSRF).
 */
export function parseS3Credentials(raw: unknown, serverBucket: string | undefined): S3Credentials {
  // absent credentials are allowed: the server's own identity on S3_BUCKET
  const obj = credentialsObject(raw ?? {}, 'S3', ALLOWED, SERVER_CONFIG_FIELDS);
  const accessKeyId = optionalPlainString(obj, 'accessKeyId', 256);
  const secretAccessKey = optionalPlainString(obj, 'secretAccessKey', 256);
  const sessionToken = optionalPlainString(obj, 'sessionToken', 4096);
  const region = optionalPlainString(obj, 'region', 32);
  const bucket = optionalPlainString(obj, 'bucket', 63);
  const prefix = optionalPlainString(obj, 'prefix', 1024) ?? '';
  if (region !== undefined && !REGION.test(region))
    throw DomainError.validation('credentials.region', 'credentials.region is not a valid region name');
  if (bucket !== undefined && !BUCKET.test(bucket))
    throw DomainError.validation('credentials.bucket', 'credentials.bucket is not a valid S3 bucket name');
  if (prefix.startsWith('/'))
    throw DomainError.validation('credentials.prefix', 'credentials.prefix must not start with "/"');

  if (!accessKeyId !== !secretAccessKey) {
    const missing = accessKeyId ? 'secretAccessKey' : 'accessKeyId';
    throw DomainError.validation(
      `credentials.${missing}`,
      'credentials.accessKeyId and credentials.secretAccessKey go together',
    );
  }
  if (accessKeyId && secretAccessKey) {
    if (!bucket) throw DomainError.validation('credentials.bucket', 'credentials.bucket is required');
    return { bucket, prefix, region, accessKeyId, secretAccessKey, sessionToken };
  }
  if (sessionToken)
    throw DomainError.validation('credentials.sessionToken', 'credentials.sessionToken needs access keys');
  // No keys: the server's own identity, which covers only the configured bucket.
  if (!serverBucket)
    throw DomainError.validation(
      'credentials',
      'credentials with accessKeyId, secretAccessKey and bucket are required (no server-side bucket is configured)',
    );
  if (bucket !== undefined && bucket !== serverBucket)
    throw DomainError.forbidden('Server-side bucket access covers only the configured bucket');
  return { bucket: serverBucket, prefix, region };
}
