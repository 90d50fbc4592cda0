import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** One page of a test PDF: typed text (a text layer) or a scan (an image of text, no text layer). */
export type TestPage = { typed: string[] } | { scanned: string[] };

const WIDTH_PT = 612;
const HEIGHT_PT = 792;
/** Resolution of the "scanner": 200 DPI, as office scanners default to. */
const SCAN_DPI = 200;

/**
 * An image of a page of text: the lines drawn in black on white (a system sans-serif font) at
 * SCAN_DPI, as JPEG, the way a scanner stores a page.
 */
export function scanImage(lines: string[]): Buffer {
  if (!GlobalFonts.has('DejaVu Sans') && !GlobalFonts.has('Liberation Sans'))
    throw new Error(
      'scanned test pages need a system font: apt-get install fonts-dejavu-core (.ci/run does)',
    );
  const scale = SCAN_DPI / 72;
  const canvas = createCanvas(Math.round(WIDTH_PT * scale), Math.round(HEIGHT_PT * scale));
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#000000';
  ctx.font = `${Math.round(12 * scale)}px "DejaVu Sans", "Liberation Sans", sans-serif`;
  lines.forEach((line, i) => ctx.fillText(line, 72 * scale, (72 + 20 * i) * scale));
  return canvas.toBuffer('image/jpeg', 90);
}

/**
 * A PDF whose pages are typed text or scans: a scanned page holds only its image (no text layer,
 * what PDF.js and pdftotext read as empty), like the output of a document scanner.
 */
export async function scannedPdf(pages: TestPage[], title?: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  if (title) doc.setTitle(title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const p of pages) {
    const page = doc.addPage([WIDTH_PT, HEIGHT_PT]);
    if ('typed' in p) {
      p.typed.forEach((line, i) =>
        page.drawText(line, { x: 72, y: HEIGHT_PT - 72 - 20 * i, size: 12, font }),
      );
    } else {
      const image = await doc.embedJpg(scanImage(p.scanned));
      page.drawImage(image, { x: 0, y: 0, width: WIDTH_PT, height: HEIGHT_PT });
    }
  }
  return Buffer.from(await doc.save());
}
