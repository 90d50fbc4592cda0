import * as os from 'node:os';
import { loadConfig } from '@docqa/common';
import { UploadFiles } from './upload-files';

describe('UploadFiles', () => {
  const files = (env: Record<string, string>) => {
    const cfg = loadConfig({ DATA_DIR: os.tmpdir(), APP_SECRET: 'x'.repeat(32), ...env });
    return new UploadFiles(cfg.core, cfg.sources);
  };

  it('uses the data directory by default and the bucket when UPLOAD_S3_BUCKET is set', () => {
    expect(files({}).store.kind).toBe('directory');
    const s3 = files({ UPLOAD_S3_BUCKET: 'uploads' });
    expect(s3.store.kind).toBe('s3');
    s3.onModuleDestroy();
  });

  it('in production, offers uploads only with a bucket (api and workers do not share a data directory)', () => {
    expect(files({}).enabled).toBe(true);
    expect(files({ NODE_ENV: 'production' }).enabled).toBe(false);
    const s3 = files({ NODE_ENV: 'production', UPLOAD_S3_BUCKET: 'uploads' });
    expect(s3.enabled).toBe(true);
    s3.onModuleDestroy();
  });

  it('has the documented default limits', () => {
    expect(files({}).limits).toEqual({ maxFiles: 100, maxFileBytes: 104857600 });
  });
});
