import { readWithinLimit, tooLarge } from '../bounded-body';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { SOURCES_CONFIG, SourcesConfig } from '@docqa/common';
import type { SourceType } from '@docqa/db';
import { DownloadedFile, SourceConnector, SourceError, SourcePage } from '../source.port';
import { parseS3Credentials, S3Credentials } from './s3-credentials';

const ACCESS_DENIED = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'TokenRefreshRequired',
  'AllAccessDisabled',
  'AuthorizationHeaderMalformed',
  'PermanentRedirect',
  'CredentialsProviderError',
]);
const NOT_FOUND = new Set(['NoSuchBucket', 'NoSuchKey', 'NotFound']);

export function s3SourceId(bucket: string, key: string): string {
  return `s3://${bucket}/${key}`;
}

/** Splits `s3://bucket/key` (the only form this connector hands out). */
export function parseS3SourceId(sourceId: string): { bucket: string; key: string } {
  const m = /^s3:\/\/([^/]+)\/(.+)$/s.exec(sourceId);
  if (!m) throw new SourceError('NOT_FOUND', 'Not an S3 source id');
  return { bucket: m[1], key: m[2] };
}

/**
 * S3 (and S3-compatible stores) through @aws-sdk/client-s3. The endpoint and addressing style come
 * from S3_ENDPOINT / S3_FORCE_PATH_STYLE only. Clients are cached per credential set for the life
 * of the process, so paging and downloads of one run reuse connections.
 */
@Injectable()
export class S3Connector implements SourceConnector<S3Credentials>, OnModuleDestroy {
  readonly sourceType: SourceType = 'S3';
  private readonly clients = new Map<string, S3Client>();

  constructor(@Inject(SOURCES_CONFIG) private readonly sources: SourcesConfig) {}

  parseCredentials(raw: unknown): S3Credentials {
    return parseS3Credentials(raw, this.sources.s3Bucket);
  }

  scopeOf(c: S3Credentials): string {
    return s3SourceId(c.bucket, c.prefix);
  }

  async check(c: S3Credentials): Promise<void> {
    await this.call(c, 'list', () =>
      this.client(c).send(
        new ListObjectsV2Command({ Bucket: c.bucket, Prefix: c.prefix || undefined, MaxKeys: 1 }),
      ),
    );
  }

  async listPage(c: S3Credentials, pageToken: string | null, pageSize: number): Promise<SourcePage> {
    const res = await this.call(c, 'list', () =>
      this.client(c).send(
        new ListObjectsV2Command({
          Bucket: c.bucket,
          Prefix: c.prefix || undefined,
          MaxKeys: Math.min(Math.max(pageSize, 1), 1000),
          ContinuationToken: pageToken ?? undefined,
        }),
      ),
    );
    const objects = (res.Contents ?? [])
      .filter((o) => o.Key && !o.Key.endsWith('/'))
      .map((o) => {
        const key = o.Key as string;
        return {
          sourceId: s3SourceId(c.bucket, key),
          path: key,
          fileName: key.slice(key.lastIndexOf('/') + 1),
          etag: o.ETag ? o.ETag.replace(/"/g, '') : null,
          sizeBytes: Number(o.Size ?? 0),
          lastModified: o.LastModified ? o.LastModified.toISOString() : null,
        };
      });
    return {
      objects,
      nextPageToken: res.IsTruncated && res.NextContinuationToken ? res.NextContinuationToken : null,
    };
  }

  async download(c: S3Credentials, sourceId: string, maxBytes: number): Promise<DownloadedFile> {
    const { bucket, key } = parseS3SourceId(sourceId);
    if (bucket !== c.bucket) throw new SourceError('ACCESS_DENIED', 'The file is outside the source bucket');
    const head = await this.call(c, 'download', () =>
      this.client(c).send(new HeadObjectCommand({ Bucket: bucket, Key: key })),
    );
    if (Number(head.ContentLength ?? 0) > maxBytes) throw tooLarge(maxBytes);
    const res = await this.call(c, 'download', () =>
      this.client(c).send(new GetObjectCommand({ Bucket: bucket, Key: key })),
    );
    const data = await readWithinLimit(
      res.Body as AsyncIterable<Uint8Array>,
      maxBytes,
      'The S3 download was interrupted',
    );
    return { data, etag: res.ETag ? res.ETag.replace(/"/g, '') : null };
  }

  onModuleDestroy(): void {
    for (const client of this.clients.values()) client.destroy();
    this.clients.clear();
  }

  private client(c: S3Credentials): S3Client {
    const key = JSON.stringify([c.region, c.accessKeyId, c.secretAccessKey, c.sessionToken]);
    let client = this.clients.get(key);
    if (!client) {
      client = new S3Client({
        region: c.region ?? this.sources.s3Region,
        endpoint: this.sources.s3Endpoint,
        forcePathStyle: this.sources.s3ForcePathStyle,
        credentials: c.accessKeyId
          ? {
              accessKeyId: c.accessKeyId,
              secretAccessKey: c.secretAccessKey as string,
              sessionToken: c.sessionToken,
            }
          : undefined,
        // Temporal retries activities with backoff; keep the SDK's own retries short.
        maxAttempts: 2,
      });
      if (this.clients.size >= 64) this.evictOne();
      this.clients.set(key, client);
    }
    return client;
  }

  private evictOne(): void {
    const first = this.clients.keys().next();
    if (first.done) return;
    this.clients.get(first.value)?.destroy();
    this.clients.delete(first.value);
  }

  /** Runs one SDK call and maps its failure to a SourceError whose text never carries secrets. */
  private async call<T>(c: S3Credentials, what: 'list' | 'download', fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toSourceError(err, c.bucket, what);
    }
  }
}

export function toSourceError(err: unknown, bucket: string, what: 'list' | 'download'): SourceError {
  if (err instanceof SourceError) return err;
  const name = (err as { name?: string })?.name ?? 'Error';
  const status = err instanceof S3ServiceException ? err.$metadata?.httpStatusCode : undefined;
  const subject = what === 'list' ? `S3 bucket "${bucket}"` : `S3 object in bucket "${bucket}"`;
  if (ACCESS_DENIED.has(name) || status === 401 || status === 403)
    return new SourceError('ACCESS_DENIED', `${subject}: access denied (${name})`);
  if (NOT_FOUND.has(name) || status === 404)
    return new SourceError('NOT_FOUND', `${subject}: not found (${name})`);
  return new SourceError('UNAVAILABLE', `${subject}: unreachable (${name})`);
}
