import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestApp } from '../support/app';
import type { HttpResponse } from '../support/http';
import { dbOf } from './support';

export const UPLOAD = '/api/v1/document_proxy/index/upload';

export interface FormFile {
  name: string;
  data: Buffer | string;
  field?: string;
  contentType?: string;
}

/** A multipart/form-data body written by hand, so tests can send what browsers and curl never would. */
export function formData(
  fields: Array<[string, string]>,
  files: FormFile[],
): { body: Buffer; contentType: string } {
  const boundary = `----docqa${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of fields)
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  for (const f of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.field ?? 'files'}"; filename="${f.name}"\r\n` +
          `Content-Type: ${f.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      Buffer.isBuffer(f.data) ? f.data : Buffer.from(f.data),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function upload(
  app: TestApp,
  token: string,
  docSetName: string | null,
  files: FormFile[],
): Promise<HttpResponse> {
  const { body, contentType } = formData(docSetName === null ? [] : [['docSetName', docSetName]], files);
  return app.client.request('POST', UPLOAD, {
    rawBody: body,
    token,
    headers: { 'content-type': contentType },
  });
}

/** The embedded upload store's folder of one account's docset. */
export function storeDir(app: TestApp, accountId: number, docSetName: string): string {
  const key = createHash('sha256').update(docSetName, 'utf8').digest('hex');
  return path.join(app.dataDir, 'uploads', String(accountId), key);
}

/** Every file under DATA_DIR/uploads (staging included), relative paths, sorted. */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) =>
      path.relative(dir, path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name)),
    )
    .sort();
}

export async function runCount(app: TestApp, accountId: number): Promise<number> {
  const db = await dbOf(app);
  try {
    const { rows } = await db.query('SELECT count(*)::int AS n FROM index_runs WHERE account_id = $1', [
      accountId,
    ]);
    return rows[0].n as number;
  } finally {
    await db.end();
  }
}
