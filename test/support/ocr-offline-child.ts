// Child process of the OCR offline test (libs/indexing/src/extraction/ocr/pdf-ocr.spec.ts): reads
// a generated scanned PDF with the production PdfExtractor and prints its pages as JSON. Started
// with test/support/offline.js preloaded, so any download fails the extraction.
import { PdfExtractor } from '../../libs/indexing/src/extraction/pdf-extractor';
import { scannedPdf } from './scanned-pdf';

async function main(): Promise<void> {
  const pdf = await scannedPdf([{ scanned: ['Offline recognition of the lighthouse inventory.'] }]);
  const extractor = new PdfExtractor({ threads: 1, nice: 5 });
  try {
    const { pages } = await extractor.extractContent(pdf);
    process.stdout.write(JSON.stringify({ pages }));
  } finally {
    await extractor.onModuleDestroy();
  }
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ error: String(err?.message ?? err) }));
  process.exitCode = 1;
});
