import * as XLSX from '@e965/xlsx';
import JSZip from 'jszip';
import PptxGenJS from 'pptxgenjs';

/** A slide of a generated deck: text boxes (inches from the top left), an optional table and notes. */
export interface SlideSpec {
  title?: string;
  boxes?: Array<{ text: string; x: number; y: number }>;
  table?: string[][];
  notes?: string;
}

/** A deck made by PptxGenJS (what many tools write): one slide per spec, in order. */
export async function makeDeck(slides: SlideSpec[]): Promise<Buffer> {
  const pptx = new PptxGenJS();
  pptx.defineSlideMaster({
    title: 'TITLED',
    objects: [],
    slideNumber: { x: 9, y: 5.2 },
  });
  for (const spec of slides) {
    const slide = pptx.addSlide({ masterName: 'TITLED' });
    if (spec.title) slide.addText(spec.title, { x: 0.5, y: 0.2, w: 9, h: 0.8, fontSize: 28 });
    for (const b of spec.boxes ?? []) slide.addText(b.text, { x: b.x, y: b.y, w: 4, h: 0.6 });
    if (spec.table)
      slide.addTable(
        spec.table.map((r) => r.map((text) => ({ text }))),
        { x: 0.5, y: 3.5, w: 9 },
      );
    if (spec.notes) slide.addNotes(spec.notes);
  }
  return (await pptx.write({ outputType: 'nodebuffer' })) as Buffer;
}

const NS =
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
  'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

const shape = (o: { text: string; x: number; y: number; ph?: string }) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>${o.ph ? `<p:ph type="${o.ph}"/>` : ''}</p:nvPr></p:nvSpPr>` +
  `<p:spPr><a:xfrm><a:off x="${o.x}" y="${o.y}"/><a:ext cx="100" cy="100"/></a:xfrm></p:spPr>` +
  `<p:txBody><a:bodyPr/>${o.text
    .split('\n')
    .map((line) => `<a:p><a:r><a:t>${line}</a:t></a:r></a:p>`)
    .join('')}</p:txBody></p:sp>`;

/**
 * A hand-written one-slide deck with what generators rarely write: shapes in an order that is not
 * the reading order, a group of shapes, a title placeholder listed last, a slide-number
 * placeholder, and speaker notes. Parts as PowerPoint names them.
 */
export async function makeHandWrittenDeck(): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    'ppt/presentation.xml',
    `<p:presentation ${NS}><p:sldIdLst><p:sldId id="257" r:id="rId9"/><p:sldId id="256" r:id="rId8"/></p:sldIdLst></p:presentation>`,
  );
  zip.file(
    'ppt/_rels/presentation.xml.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      `<Relationship Id="rId8" Type="${REL}/slide" Target="slides/slide2.xml"/>` +
      `<Relationship Id="rId9" Type="${REL}/slide" Target="slides/slide1.xml"/></Relationships>`,
  );
  const group =
    `<p:grpSp><p:nvGrpSpPr><p:cNvPr id="5" name="g"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>` +
    `<p:grpSpPr><a:xfrm><a:off x="0" y="2000000"/><a:ext cx="1" cy="1"/></a:xfrm></p:grpSpPr>` +
    shape({ text: 'Group right', x: 5000000, y: 2000000 }) +
    shape({ text: 'Group left', x: 100000, y: 2000000 }) +
    `</p:grpSp>`;
  zip.file(
    'ppt/slides/slide1.xml',
    `<p:sld ${NS}><p:cSld><p:spTree>` +
      shape({ text: 'Bottom line', x: 100000, y: 5000000 }) +
      group +
      shape({ text: 'Top right', x: 5000000, y: 1000000 }) +
      shape({ text: 'Top left &amp; first', x: 100000, y: 1000000 }) +
      shape({ text: '7', x: 8000000, y: 6000000, ph: 'sldNum' }) +
      shape({ text: 'Quarterly review', x: 0, y: 0, ph: 'title' }) +
      `</p:spTree></p:cSld></p:sld>`,
  );
  zip.file(
    'ppt/slides/_rels/slide1.xml.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      `<Relationship Id="rId2" Type="${REL}/notesSlide" Target="../notesSlides/notesSlide1.xml"/></Relationships>`,
  );
  zip.file(
    'ppt/notesSlides/notesSlide1.xml',
    `<p:notes ${NS}><p:cSld><p:spTree>` +
      shape({ text: 'slide image', x: 0, y: 0, ph: 'sldImg' }) +
      shape({ text: 'Mention the Oslo office.', x: 0, y: 100, ph: 'body' }) +
      `</p:spTree></p:cSld></p:notes>`,
  );
  zip.file(
    'ppt/slides/slide2.xml',
    `<p:sld ${NS}><p:cSld><p:spTree>${shape({ text: 'Second', x: 0, y: 0 })}</p:spTree></p:cSld></p:sld>`,
  );
  return zip.generateAsync({ type: 'nodebuffer' });
}

/** A sheet of a generated workbook: rows of values (a cell object for formats and formulas). */
export interface SheetSpec {
  name: string;
  rows: Array<Array<string | number | XLSX.CellObject | null>>;
  hidden?: boolean;
}

/** A workbook written by SheetJS, one sheet per spec. */
export function makeWorkbook(sheets: SheetSpec[]): Buffer {
  const wb = XLSX.utils.book_new();
  for (const s of sheets) {
    const ws: XLSX.WorkSheet = {};
    s.rows.forEach((row, r) =>
      row.forEach((v, c) => {
        if (v === null) return;
        ws[XLSX.utils.encode_cell({ r, c })] =
          typeof v === 'object' ? v : typeof v === 'number' ? { t: 'n', v } : { t: 's', v };
      }),
    );
    const width = s.rows.reduce((w, r) => Math.max(w, r.length), 1);
    ws['!ref'] = XLSX.utils.encode_range({
      s: { r: 0, c: 0 },
      e: { r: Math.max(0, s.rows.length - 1), c: width - 1 },
    });
    XLSX.utils.book_append_sheet(wb, ws, s.name);
  }
  wb.Workbook = { Sheets: sheets.map((s) => ({ name: s.name, Hidden: s.hidden ? 1 : 0 })) };
  return XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

/**
 * What a password-protected Office file is: an OLE compound file holding EncryptionInfo and the
 * EncryptedPackage (here random bytes: the reader must refuse it before any decryption).
 */
export function encryptedOfficeFile(): Buffer {
  const cfb = XLSX.CFB.utils.cfb_new();
  XLSX.CFB.utils.cfb_add(
    cfb,
    'EncryptionInfo',
    Buffer.from([4, 0, 4, 0, 0x40, 0, 0, 0, ...new Array(56).fill(0)]),
  );
  XLSX.CFB.utils.cfb_add(cfb, 'EncryptedPackage', Buffer.alloc(4096, 7));
  return Buffer.from(XLSX.CFB.write(cfb, { type: 'buffer' }) as Uint8Array);
}
