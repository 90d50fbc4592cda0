import { Injectable } from '@nestjs/common';
import { assertDocsetsAllowed, AuthContext, isDocsetAllowed } from '@docqa/accounts';
import { DomainError } from '@docqa/common';
import {
  DocsetCatalog,
  DocsetMetadataRow,
  DocsetRow,
  DocumentCatalog,
  DocumentListRow,
  emptyStatusCounts,
} from '@docqa/catalog';

/** Spec "Document (Document API)"; dates ISO 8601. */
export interface DocumentView {
  id: string;
  fileName: string;
  docSetName: string;
  /** Source type: `S3`, `SHAREPOINT` or `GOOGLEDRIVE`. */
  source: string;
  indexingStatus: string;
  createdAt: string;
  updatedAt: string;
}

export interface DocsetView {
  docSetName: string;
  sourceTypes: string[];
  documentCount: number;
  completedCount: number;
  pendingCount: number;
  indexingCount: number;
  errorCount: number;
  cancelledCount: number;
  pageCount: number;
  chunkCount: number;
  lastIndexedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DocsetMetadataView extends DocsetView {
  statusCounts: Record<'PENDING' | 'INDEXING' | 'COMPLETE' | 'ERROR' | 'CANCELLED', number>;
  totalBytes: number;
  fileTypes: Array<{ fileType: string; documentCount: number }>;
  sources: Array<{ sourceType: string; documentCount: number }>;
  firstIndexedAt: string | null;
  summaryCount: number;
  summaries: Array<{ documentId: string; fileName: string; summary: string }>;
  filings: DocsetMetadataRow['filings'];
}

export const RECENT_LIMIT = { min: 1, max: 100, default: 20 } as const;

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

function documentView(r: DocumentListRow): DocumentView {
  return {
    id: r.id,
    fileName: r.fileName,
    docSetName: r.docSetName,
    source: r.sourceType,
    indexingStatus: r.status,
    createdAt: iso(r.createdAt) as string,
    updatedAt: iso(r.updatedAt) as string,
  };
}

function docsetView(r: DocsetRow): DocsetView {
  return {
    docSetName: r.docSetName,
    sourceTypes: r.sourceTypes,
    documentCount: r.documentCount,
    completedCount: r.counts.COMPLETE,
    pendingCount: r.counts.PENDING,
    indexingCount: r.counts.INDEXING,
    errorCount: r.counts.ERROR,
    cancelledCount: r.counts.CANCELLED,
    pageCount: r.pageCount,
    chunkCount: r.chunkCount,
    lastIndexedAt: iso(r.lastIndexedAt),
    createdAt: iso(r.createdAt) as string,
    updatedAt: iso(r.updatedAt) as string,
  };
}

function metadataView(r: DocsetMetadataRow): DocsetMetadataView {
  return {
    ...docsetView(r),
    statusCounts: { ...r.counts },
    totalBytes: r.totalBytes,
    fileTypes: r.fileTypes,
    sources: r.sources,
    firstIndexedAt: iso(r.firstIndexedAt),
    summaryCount: r.summaryCount,
    summaries: r.summaries,
    filings: r.filings,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isDocumentId(id: string): boolean {
  return UUID.test(id);
}

/**
 * The Document API's document endpoints, all scoped to the caller's account and token. A docset
 * name the caller has no documents (or index runs) in is answered 403 FORBIDDEN, the same as
 * another account's docset, so names of other accounts cannot be probed; an unknown or foreign
 * document id is 404 NOT_FOUND.
 */
@Injectable()
export class DocumentsService {
  constructor(
    private readonly docsetCatalog: DocsetCatalog,
    private readonly documentCatalog: DocumentCatalog,
  ) {}

  async listByDocset(
    auth: AuthContext,
    docSetName: string,
    page: { limit?: number; offset?: number } = {},
  ): Promise<DocumentView[]> {
    await this.assertKnownDocset(auth, docSetName);
    const rows = await this.documentCatalog.listByDocset(auth.accountId, docSetName, {
      limit: page.limit ?? null,
      offset: page.offset ?? 0,
    });
    return rows.map(documentView);
  }

  async recent(auth: AuthContext, limit: number = RECENT_LIMIT.default): Promise<DocumentView[]> {
    return (await this.documentCatalog.recent(auth.accountId, auth.scope.docSetNames, limit)).map(
      documentView,
    );
  }

  async docsets(auth: AuthContext): Promise<DocsetView[]> {
    return (await this.docsetCatalog.docsets(auth.accountId, auth.scope.docSetNames)).map(docsetView);
  }

  async metadata(auth: AuthContext, docSetName: string): Promise<DocsetMetadataView> {
    assertDocsetsAllowed(auth, [docSetName]);
    const row = await this.docsetCatalog.metadata(auth.accountId, docSetName);
    if (!row) {
      await this.assertKnownDocset(auth, docSetName); // a run without documents yet: empty metadata
      return metadataView({
        docSetName,
        sourceTypes: [],
        counts: emptyStatusCounts(),
        documentCount: 0,
        pageCount: 0,
        chunkCount: 0,
        lastIndexedAt: null,
        createdAt: new Date(),
        updatedAt: new Date(),
        totalBytes: 0,
        fileTypes: [],
        sources: [],
        firstIndexedAt: null,
        summaries: [],
        filings: [],
        summaryCount: 0,
      });
    }
    return metadataView(row);
  }

  async get(auth: AuthContext, id: string): Promise<DocumentView> {
    const row = isDocumentId(id) ? await this.documentCatalog.findById(auth.accountId, id) : null;
    if (!row || !isDocsetAllowed(auth, row.docSetName)) throw DomainError.notFound('Document not found');
    return documentView(row);
  }

  private async assertKnownDocset(auth: AuthContext, docSetName: string): Promise<void> {
    assertDocsetsAllowed(auth, [docSetName]);
    if (!(await this.docsetCatalog.knowsDocset(auth.accountId, docSetName))) {
      throw DomainError.forbidden('The docset does not belong to this account');
    }
  }
}
