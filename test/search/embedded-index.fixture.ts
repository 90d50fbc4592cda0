import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalHashingEmbedder } from '@docqa/embeddings';

/** What the embedded-engine suites (embedded-index-*.e2e-spec.ts) share. */
export const embedder = new LocalHashingEmbedder();
export const space = { modelName: embedder.modelName, dimensions: embedder.dimensions };

/** A fresh temp dir for each test (handed to `onCreate`), removed after it. */
export function eachTempDir(onCreate: (dir: string) => void): void {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-embedded-'));
    onCreate(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
}

/** One chunk of a one-page text document, embedded by the test embedder. */
export const chunkRecord = (
  accountId: number,
  docSetName: string,
  documentId: string,
  chunkIndex: number,
  text: string,
) => ({
  accountId,
  docSetName,
  documentId,
  fileName: `${documentId}.txt`,
  pageNumber: '1',
  sourceType: 'S3',
  sourceId: `bucket/${documentId}.txt`,
  chunkIndex,
  text,
  embedding: embedder.embed(text),
});
