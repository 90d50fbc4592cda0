import type { ChunkRecord } from '@docqa/search';
import { statementOfPage, statementSection } from '@docqa/text';
import { Chunk, chunkPages, ChunkOptions, DEFAULT_CHUNKING } from './chunker';
import { DocumentContext, documentContext, embeddingText } from './document-context';
import { joinHyphenatedWords } from './hyphenation';
import { withoutRunningLines } from './running-lines';
import { chunkSections } from './sections';

/** A chunk with the section it falls under and the text the embedder gets. */
export interface DocumentChunk extends Chunk {
  section: string;
  /** Document context, section and chunk text: what is embedded (the citation keeps `text`). */
  embeddingText: string;
}

export interface PreparedDocument {
  context: DocumentContext;
  chunks: DocumentChunk[];
}

/**
 * A document's chunks as indexing writes them: page-aware chunks of its pages, each with the
 * document's context and its section. Indexing and the test/bench seeders share it, so what is
 * measured is what production indexes.
 */
export function prepareDocument(
  doc: {
    fileName: string;
    title?: string | null;
    pages: ReadonlyArray<{ pageNumber: number; text: string }>;
  },
  o: ChunkOptions = DEFAULT_CHUNKING,
): PreparedDocument {
  const context = documentContext({
    fileName: doc.fileName,
    title: doc.title,
    pages: doc.pages.map((p) => p.text),
  });
  // Running headers and footers are noise in a chunk; the context above still counts them. Words
  // broken at a line end are joined where the document writes them whole.
  const body = joinHyphenatedWords(withoutRunningLines(doc.pages));
  const chunks = chunkPages(body, o);
  const sections = chunkSections(body, chunks);
  // A financial statement's pages carry its plain name ahead of their heading, so a question
  // that names the statement finds them (libs/text statements.ts).
  const statements = new Map(
    body.flatMap((p) => {
      const kind = statementOfPage(p.text);
      return kind ? [[p.pageNumber, kind] as const] : [];
    }),
  );
  return {
    context,
    chunks: chunks.map((c, i) => {
      const kind = statements.get(c.pageNumber);
      const section = kind ? statementSection(kind, sections[i]) : sections[i];
      return { ...c, section, embeddingText: embeddingText(context, section, c.text) };
    }),
  };
}

/** The context fields of a chunk record. */
export function contextFields(
  context: DocumentContext,
  chunk: DocumentChunk,
): Pick<ChunkRecord, 'documentTitle' | 'documentTerms' | 'section'> {
  const documentTitle = [context.filing, context.title].filter(Boolean).join(' | ');
  return { documentTitle, documentTerms: context.terms, section: chunk.section };
}
