import { posix } from 'node:path';
import { parseDocument } from 'htmlparser2';
import JSZip from 'jszip';
import { OfficeRejection } from './office-rejection';
import { isOleContainer, readOfficeZip, readPart } from './office-package';

/** The part of a domhandler node this reader uses (htmlparser2's DOM in XML mode). */
interface XmlNode {
  type: string;
  name?: string;
  attribs?: Record<string, string>;
  children?: XmlNode[];
  data?: string;
}

/** Shapes whose tops differ by less than this (EMU; 0.1 inch) are one line of the slide, read left to right. */
const SAME_LINE_EMU = 91_440;

/** Placeholder types that are slide furniture, not content (date, footer, slide number, the notes page's slide image). */
const FURNITURE = new Set(['dt', 'ftr', 'sldNum', 'sldImg', 'hdr']);
const TITLES = new Set(['title', 'ctrTitle']);

const tags = (n: XmlNode | undefined): XmlNode[] => (n?.children ?? []).filter((c) => c.type === 'tag');
const child = (n: XmlNode | undefined, name: string) => tags(n).find((c) => c.name === name);

function* descendants(n: XmlNode, name: string): Generator<XmlNode> {
  for (const c of tags(n)) {
    if (c.name === name) yield c;
    else yield* descendants(c, name);
  }
}

function xml(source: string): XmlNode {
  return parseDocument(source, { xmlMode: true }) as unknown as XmlNode;
}

/** Text of a DrawingML text body: paragraphs on their own lines, `a:br` as a line break. */
function bodyText(body: XmlNode | undefined): string {
  if (!body) return '';
  const paragraphs: string[] = [];
  for (const p of descendants(body, 'a:p')) {
    let line = '';
    for (const run of tags(p)) {
      if (run.name === 'a:br') line += '\n';
      else if (run.name === 'a:r' || run.name === 'a:fld')
        for (const t of tags(run)) if (t.name === 'a:t') line += textOf(t);
    }
    paragraphs.push(line);
  }
  return paragraphs.join('\n').trim();
}

function textOf(n: XmlNode): string {
  return (n.children ?? []).map((c) => (c.type === 'text' ? (c.data ?? '') : textOf(c))).join('');
}

/** A table as lines of cells separated by " | " (a row stays on one line, as a chunk keeps it). */
function tableText(tbl: XmlNode): string {
  return tags(tbl)
    .filter((r) => r.name === 'a:tr')
    .map((r) =>
      tags(r)
        .filter((c) => c.name === 'a:tc' && c.attribs?.hMerge !== '1' && c.attribs?.vMerge !== '1')
        .map((c) => bodyText(child(c, 'a:txBody')).replace(/\s*\n\s*/g, ' '))
        .join(' | '),
    )
    .filter((line) => line.replace(/[|\s]/g, '') !== '')
    .join('\n');
}

interface Placed {
  text: string;
  title: boolean;
  y: number;
  x: number;
}

interface Placeholder {
  type: string;
  idx: string;
}

function placeholderOf(shape: XmlNode): Placeholder | null {
  const nv = tags(shape).find((c) => c.name?.startsWith('p:nv'));
  const ph = child(child(nv, 'p:nvPr'), 'p:ph');
  return ph ? { type: ph.attribs?.type ?? 'body', idx: ph.attribs?.idx ?? '' } : null;
}

/** The shape's offset (EMU) from its own transform, else from its layout placeholder's. */
function offsetOf(shape: XmlNode, layout: Map<string, { x: number; y: number }>): { x: number; y: number } {
  const xfrm =
    child(child(shape, 'p:spPr'), 'a:xfrm') ??
    child(child(shape, 'p:grpSpPr'), 'a:xfrm') ??
    child(shape, 'p:xfrm');
  const off = child(xfrm, 'a:off');
  if (off) return { x: Number(off.attribs?.x) || 0, y: Number(off.attribs?.y) || 0 };
  const ph = placeholderOf(shape);
  const inherited = ph && (layout.get(`idx:${ph.idx}`) ?? layout.get(`type:${ph.type}`));
  return inherited ?? { x: Number.MAX_SAFE_INTEGER, y: Number.MAX_SAFE_INTEGER };
}

/** Reading order: titles first, then top to bottom, shapes on one line left to right (stable). */
function byReadingOrder(a: Placed, b: Placed): number {
  if (a.title !== b.title) return a.title ? -1 : 1;
  if (Math.abs(a.y - b.y) >= SAME_LINE_EMU) return a.y - b.y;
  return a.x - b.x;
}

/** Text of the shapes of a shape tree (a slide's `p:spTree` or a group), in reading order. */
function treeText(tree: XmlNode, layout: Map<string, { x: number; y: number }>, skipBody = false): string {
  const placed: Placed[] = [];
  for (const shape of tags(tree)) {
    const ph = placeholderOf(shape);
    if (ph && FURNITURE.has(ph.type)) continue;
    let text = '';
    if (shape.name === 'p:sp') {
      if (skipBody && ph?.type !== 'body') continue;
      text = bodyText(child(shape, 'p:txBody'));
    } else if (shape.name === 'p:grpSp') text = treeText(shape, layout, skipBody);
    else if (shape.name === 'p:graphicFrame' && !skipBody) {
      const tbl = descendants(shape, 'a:tbl').next().value;
      if (tbl) text = tableText(tbl);
    }
    if (!text) continue;
    const at = offsetOf(shape, layout);
    placed.push({ text, title: !!ph && TITLES.has(ph.type), ...at });
  }
  return placed
    .sort(byReadingOrder)
    .map((p) => p.text)
    .join('\n');
}

/** Relationship targets of a part by type suffix (`slide`, `notesSlide`, `slideLayout`), resolved to zip paths. */
async function relations(zip: JSZip, part: string): Promise<Map<string, { type: string; path: string }>> {
  const dir = posix.dirname(part);
  const rels = await readPart(zip, posix.join(dir, '_rels', `${posix.basename(part)}.rels`), 'PPTX');
  const out = new Map<string, { type: string; path: string }>();
  if (!rels) return out;
  for (const r of descendants(xml(rels), 'Relationship')) {
    const target = r.attribs?.Target ?? '';
    if (r.attribs?.TargetMode === 'External' || !target) continue;
    const type = (r.attribs?.Type ?? '').split('/').pop() ?? '';
    const path = target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join(dir, target));
    out.set(r.attribs?.Id ?? '', { type, path });
  }
  return out;
}

/** Placeholder offsets of a slide layout, by `idx:` and `type:`, for placeholders that inherit their position. */
async function layoutOffsets(
  zip: JSZip,
  path: string | undefined,
): Promise<Map<string, { x: number; y: number }>> {
  const out = new Map<string, { x: number; y: number }>();
  const source = path ? await readPart(zip, path, 'PPTX') : undefined;
  if (!source) return out;
  for (const shape of descendants(xml(source), 'p:sp')) {
    const ph = placeholderOf(shape);
    const off = child(child(child(shape, 'p:spPr'), 'a:xfrm'), 'a:off');
    if (!ph || !off) continue;
    const at = { x: Number(off.attribs?.x) || 0, y: Number(off.attribs?.y) || 0 };
    if (ph.idx) out.set(`idx:${ph.idx}`, at);
    if (!out.has(`type:${ph.type}`)) out.set(`type:${ph.type}`, at);
  }
  return out;
}

async function slideText(zip: JSZip, path: string): Promise<string> {
  const source = await readPart(zip, path, 'PPTX');
  if (source === undefined) return '';
  const rels = [...(await relations(zip, path)).values()];
  const layout = await layoutOffsets(zip, rels.find((r) => r.type === 'slideLayout')?.path);
  const tree = descendants(xml(source), 'p:spTree').next().value;
  const body = tree ? treeText(tree, layout) : '';
  const notesPath = rels.find((r) => r.type === 'notesSlide')?.path;
  const notesSource = notesPath ? await readPart(zip, notesPath, 'PPTX') : undefined;
  const notesTree = notesSource ? descendants(xml(notesSource), 'p:spTree').next().value : undefined;
  const notes = notesTree ? treeText(notesTree, new Map(), true) : '';
  return notes ? `${body}\n\nSpeaker notes:\n${notes}` : body;
}

/**
 * Text of a PowerPoint deck, one page per slide in presentation order (page n = slide n):
 * titles, text boxes, tables (a row per line) and grouped shapes in reading order, then the
 * slide's speaker notes. Charts, SmartArt and pictures carry no text here.
 */
export async function pptxPages(data: Buffer): Promise<string[]> {
  if (isOleContainer(data))
    throw new OfficeRejection(
      'ENCRYPTED',
      'The PPTX file is encrypted (password-protected) or is a legacy PowerPoint 97-2003 file',
    );
  const zip = await readOfficeZip(data, 'PPTX');
  const presentation = await readPart(zip, 'ppt/presentation.xml', 'PPTX');
  if (!presentation)
    throw new OfficeRejection(
      'CORRUPT',
      'The PPTX file is not a PowerPoint presentation (no ppt/presentation.xml)',
    );
  const rels = await relations(zip, 'ppt/presentation.xml');
  const slides: string[] = [];
  for (const id of descendants(xml(presentation), 'p:sldId')) {
    const rel = rels.get(id.attribs?.['r:id'] ?? '');
    if (rel?.type === 'slide') slides.push(await slideText(zip, rel.path));
  }
  return slides;
}
