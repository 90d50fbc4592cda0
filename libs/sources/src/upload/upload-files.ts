import * as path from 'node:path';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { CORE_CONFIG, CoreConfig, SOURCES_CONFIG, SourcesConfig } from '@docqa/common';
import { DirectoryUploadStore } from './directory-upload-store';
import { S3UploadStore } from './s3-upload-store';
import { UploadStaging } from './upload-staging';
import type { UploadStore } from './upload-store.port';

/**
 * The account upload store this deployment uses (UPLOAD_S3_BUCKET, else DATA_DIR/uploads), the
 * staging folder of requests in flight (DATA_DIR/uploads/.staging, local to the API process) and
 * the request limits.
 */
/** Files one upload request may carry; more gets 413 and nothing is stored (docs/sources.md). */
export const UPLOAD_MAX_FILES = 100;

@Injectable()
export class UploadFiles implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('UploadFiles');
  readonly store: UploadStore;
  private readonly stagingRoot: string;

  constructor(
    @Inject(CORE_CONFIG) private readonly core: CoreConfig,
    @Inject(SOURCES_CONFIG) private readonly sources: SourcesConfig,
  ) {
    const root = path.join(core.dataDir, 'uploads');
    this.stagingRoot = path.join(root, '.staging');
    this.store = sources.uploadS3Bucket
      ? new S3UploadStore(sources.uploadS3Bucket, sources)
      : new DirectoryUploadStore(root);
  }

  /**
   * Production runs API replicas and workers as separate processes, each with its own DATA_DIR:
   * there the directory store would lose files between them, so uploads need UPLOAD_S3_BUCKET.
   */
  get enabled(): boolean {
    return this.store.kind === 's3' || this.core.nodeEnv !== 'production';
  }

  get limits(): { maxFiles: number; maxFileBytes: number } {
    return {
      maxFiles: this.sources.uploadMaxFiles ?? UPLOAD_MAX_FILES,
      maxFileBytes: this.sources.uploadMaxFileBytes,
    };
  }

  openStaging(): Promise<UploadStaging> {
    return UploadStaging.open(this.stagingRoot);
  }

  async onModuleInit(): Promise<void> {
    await UploadStaging.sweep(this.stagingRoot).catch((err: unknown) =>
      this.logger.warn({ errName: (err as Error)?.name }, 'could not sweep the upload staging folder'),
    );
  }

  onModuleDestroy(): void {
    if (this.store instanceof S3UploadStore) this.store.destroy();
  }
}
