import { Injectable } from '@nestjs/common';
import mammoth from 'mammoth';
import { abortable } from '@docqa/common';
import type { IndexableFileType } from '@docqa/sources';
import { DocumentRejectedError } from './document-rejected.error';
import { cleanExtractedText } from './extracted-text';
import { htmlToText } from './html-text';
import { isOleContainer } from './office-package';
import { PdfExtractOptions, PdfExtractor } from './pdf-extractor';
import { officePagesInThread } from './office-thread';
import { decodeText, textPages } from './text-decoding';

/** A file's text: its pages (index 0 is physical page 1) and its title where the format has one. */
export interface ExtractedDocument {
  pages: string[];
  /** The PDF's metadata title; null when absent or for other formats. */
  title: string | null;
}

/**
 * File bytes to page texts (index 0 is physical page 1). PDFs keep their physical pages; a slide
 * deck has a page per slide and a workbook a page per visible sheet; DOCX, HTML, Markdown and CSV
 * are one page; plain text is split on form feeds. Throws DocumentRejectedError for files no retry
 * can read. Everything it returns or throws has passed cleanExtractedText: the one place where
 * control characters are removed before anything is stored, indexed or logged.
 */
@Injectable()
export class DocumentExtractor {
  constructor(private readonly pdf: PdfExtractor) {}

  async extract(fileType: IndexableFileType | string, data: Buffer, signal?: AbortSignal): Promise<string[]> {
    return (await this.extractDocument(fileType, data, signal)).pages;
  }

  /** Pages and title, cleaned. Throws DocumentRejectedError for files no retry can read. */
  async extractDocument(
    fileType: IndexableFileType | string,
    data: Buffer,
    signal?: AbortSignal,
    pdfOptions?: PdfExtractOptions,
  ): Promise<ExtractedDocument> {
    let content: ExtractedDocument;
    try {
      content = await this.content(fileType, data, signal, pdfOptions);
    } catch (err) {
      // a reason may quote the file (a parser's message): it becomes documents.error
      if (err instanceof Error) err.message = cleanExtractedText(err.message);
      throw err;
    }
    const pages = content.pages.map(cleanExtractedText);
    const title = content.title === null ? null : cleanExtractedText(content.title).trim() || null;
    if (!pages.some((p) => p.trim().length > 0)) {
      throw new DocumentRejectedError(
        'EMPTY',
        fileType === 'pdf'
          ? 'The PDF has no extractable text' // PdfExtractor says first whether OCR ran
          : 'The file has no text',
      );
    }
    return { pages, title };
  }

  private async content(
    fileType: string,
    data: Buffer,
    signal?: AbortSignal,
    pdfOptions?: PdfExtractOptions,
  ): Promise<ExtractedDocument> {
    if (fileType === 'pdf') {
      if (!data.subarray(0, 1024).includes('%PDF-'))
        throw new DocumentRejectedError('CORRUPT', 'The file is not a PDF (no %PDF header)');
      return this.pdf.extractContent(data, signal, pdfOptions);
    }
    return { pages: await this.pages(fileType, data, signal), title: null };
  }

  private async pages(fileType: string, data: Buffer, signal?: AbortSignal): Promise<string[]> {
    switch (fileType) {
      case 'docx':
        return [await abortable(docxText(data), signal)];
      case 'pptx':
      case 'xlsx':
        return officePagesInThread(fileType, data, signal);
      case 'txt':
        return textPages(decodeText(data));
      case 'md':
      case 'csv':
        return [decodeText(data).replace(/\r\n?/g, '\n')];
      case 'html':
        return [htmlToText(decodeText(data))];
      default:
        throw new DocumentRejectedError('UNSUPPORTED', `Unsupported file type "${fileType}"`);
    }
  }
}

async function docxText(data: Buffer): Promise<string> {
  if (isOleContainer(data))
    throw new DocumentRejectedError(
      'ENCRYPTED',
      'The DOCX file is encrypted (password-protected) or is a legacy Word 97-2003 file',
    );
  if (data.length < 4 || data[0] !== 0x50 || data[1] !== 0x4b)
    throw new DocumentRejectedError('CORRUPT', 'The DOCX file is not a valid Office Open XML package');
  try {
    const { value } = await mammoth.extractRawText({ buffer: data });
    return value;
  } catch (err) {
    const detail = String((err as Error)?.message ?? err)
      .replace(/\s+/g, ' ')
      .slice(0, 200);
    throw new DocumentRejectedError('CORRUPT', `The DOCX file could not be read (${detail})`);
  }
}
