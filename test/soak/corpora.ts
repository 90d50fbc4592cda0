// The soak's three corpora (the dev corpus, the similar corpus, a bucket of malformed files) and
// their buckets on the local S3 server.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createBucket, putMany, s3 } from '../indexing/support';
import { sharedDir } from '../support/infra';
import { minimalPdf } from '../support/pdf';

export interface Corpus {
  name: string;
  /** Files in the bucket, and what each must end as. */
  files: Array<{ key: string; body: Buffer; expect: 'COMPLETE' | 'ERROR' }>;
  questions: string[];
}

function corpusFiles(dir: string): Array<{ key: string; body: Buffer; expect: 'COMPLETE' }> {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.pdf'))
    .sort()
    .map((f) => ({ key: f, body: fs.readFileSync(path.join(dir, f)), expect: 'COMPLETE' as const }));
}

function questions(dir: string, n: number): string[] {
  return fs
    .readFileSync(path.join(dir, 'qa.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { question: string }).question)
    .slice(0, n);
}

/** The three corpora of the soak. */
export function soakCorpora(): Corpus[] {
  const dev = sharedDir('corpus', 'dev');
  const similar = sharedDir('corpus', 'similar');
  const real = fs.readFileSync(path.join(dev, 'geometry.pdf'));
  const encrypted = fs.readFileSync(path.resolve(__dirname, '../fixtures/indexing/encrypted.pdf'));
  return [
    { name: 'dev', files: corpusFiles(dev), questions: questions(dev, 20) },
    { name: 'similar', files: corpusFiles(similar), questions: questions(similar, 20) },
    {
      name: 'malformed',
      files: [
        { key: 'corrupt.pdf', body: Buffer.from('%PDF-1.4\n1 0 obj << garbage'), expect: 'ERROR' },
        { key: 'not-a-pdf.pdf', body: Buffer.from('MZ this is an executable, not a PDF'), expect: 'ERROR' },
        { key: 'empty.pdf', body: Buffer.alloc(0), expect: 'ERROR' },
        { key: 'truncated.pdf', body: real.subarray(0, Math.floor(real.length / 3)), expect: 'ERROR' },
        { key: 'encrypted.pdf', body: encrypted, expect: 'ERROR' },
        { key: 'scanned.pdf', body: minimalPdf(['']), expect: 'ERROR' },
        { key: 'binary.txt', body: Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00, 0x10]), expect: 'ERROR' },
        { key: 'broken.docx', body: Buffer.from('PK\u0003\u0004 not a package'), expect: 'ERROR' },
        {
          key: 'crane-notes.txt',
          body: Buffer.from('The harbour crane is inspected every spring by the port authority.\n'),
          expect: 'COMPLETE',
        },
        {
          key: 'tides.md',
          body: Buffer.from(
            '# Tides\n\nHigh tide at the north pier comes forty minutes after the south pier.\n',
          ),
          expect: 'COMPLETE',
        },
      ],
      questions: ['When is the harbour crane inspected?', 'When does high tide come at the north pier?'],
    },
  ];
}

const buckets = new Map<string, Promise<string>>();

/** The corpus's bucket on the local S3 server, uploaded once per test process. */
export function bucketOf(corpus: Corpus): Promise<string> {
  let b = buckets.get(corpus.name);
  if (!b) {
    b = (async () => {
      const client = s3();
      const bucket = await createBucket(client, `soak-${corpus.name}`);
      await putMany(client, bucket, corpus.files, 4);
      return bucket;
    })();
    buckets.set(corpus.name, b);
  }
  return b;
}
