import { readWithinLimit, tooLarge } from '../bounded-body';
import { createReadStream } from 'node:fs';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { SourcesConfig } from '@docqa/common';
import type { SourceOwner } from '../source.port';
import { toSourceError } from '../s3/s3.connector';
import { docsetStoreKey } from './upload-names';
import type { StoredUploadPage, UploadStore } from './upload-store.port';

/**
 * The production upload store: objects `{accountId}/{sha256(docSetName)}/{fileName}` in
 * UPLOAD_S3_BUCKET, reached through S3_ENDPOINT / S3_REGION / S3_FORCE_PATH_STYLE with the
 * server's own AWS identity (the default credential chain: environment, profile, instance role).
 */
export class S3UploadStore implements UploadStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;

  constructor(
    private readonly bucket: string,
    cfg: Pick<SourcesConfig, 's3Endpoint' | 's3Region' | 's3ForcePathStyle'>,
  ) {
    this.client = new S3Client({
      region: cfg.s3Region,
      endpoint: cfg.s3Endpoint,
      forcePathStyle: cfg.s3ForcePathStyle,
      maxAttempts: 3,
    });
  }

  private prefix(o: SourceOwner): string {
    return `${o.accountId}/${docsetStoreKey(o.docSetName)}/`;
  }

  private async call<T>(what: 'list' | 'download', fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toSourceError(err, this.bucket, what);
    }
  }

  async check(): Promise<void> {
    await this.call('list', () => this.client.send(new HeadBucketCommand({ Bucket: this.bucket })));
  }

  async list(o: SourceOwner, pageToken: string | null, pageSize: number): Promise<StoredUploadPage> {
    const prefix = this.prefix(o);
    const res = await this.call('list', () =>
      this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          MaxKeys: Math.min(Math.max(pageSize, 1), 1000),
          ContinuationToken: pageToken ?? undefined,
        }),
      ),
    );
    const files = (res.Contents ?? [])
      .filter((c) => c.Key && !c.Key.slice(prefix.length).includes('/'))
      .map((c) => ({
        fileName: (c.Key as string).slice(prefix.length),
        etag: (c.ETag ?? '').replace(/"/g, ''),
        sizeBytes: Number(c.Size ?? 0),
        lastModified: (c.LastModified ?? new Date(0)).toISOString(),
      }));
    return { files, nextPageToken: res.IsTruncated ? (res.NextContinuationToken ?? null) : null };
  }

  async read(
    o: SourceOwner,
    fileName: string,
    maxBytes: number,
  ): Promise<{ data: Buffer; etag: string | null }> {
    const res = await this.call('download', () =>
      this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix(o) + fileName })),
    );
    if (Number(res.ContentLength ?? 0) > maxBytes) {
      (res.Body as { destroy?: () => void } | undefined)?.destroy?.();
      throw tooLarge(maxBytes);
    }
    const data = await readWithinLimit(
      res.Body as AsyncIterable<Uint8Array>,
      maxBytes,
      'The upload store download was interrupted',
    );
    return { data, etag: res.ETag ? res.ETag.replace(/"/g, '') : null };
  }

  async put(o: SourceOwner, fileName: string, localPath: string, sizeBytes: number): Promise<void> {
    await this.call('download', () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.prefix(o) + fileName,
          Body: createReadStream(localPath),
          ContentLength: sizeBytes,
        }),
      ),
    );
  }

  async deleteDocset(o: SourceOwner): Promise<void> {
    await this.deletePrefix(this.prefix(o));
  }

  async deleteAccount(accountId: number): Promise<void> {
    await this.deletePrefix(`${accountId}/`);
  }

  /** Deletes every object under `prefix`, a listing page (at most 1,000 keys) per request. */
  private async deletePrefix(prefix: string): Promise<void> {
    for (;;) {
      const res = await this.call('list', () =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, MaxKeys: 1000 })),
      );
      const keys = (res.Contents ?? []).flatMap((c) => (c.Key ? [{ Key: c.Key }] : []));
      if (!keys.length) return;
      await this.call('list', () =>
        this.client.send(
          new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }),
        ),
      );
    }
  }

  destroy(): void {
    this.client.destroy();
  }
}
