import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  CORE_CONFIG,
  CoreConfig,
  DomainError,
  ErrorCode,
  INDEXING_CONFIG,
  IndexingConfig,
  PublicBaseUrl,
  resolveAppSecret,
} from '@docqa/common';
import { DocumentCatalog } from '@docqa/catalog';
import { SourceConnectorRegistry, SourceCredentialsCipher, SourceError } from '@docqa/sources';
import { ChatbotClock } from '../access/chatbot-clock';
import { FileLinkSigner } from './file-links';

export interface CitedFile {
  documentId: string;
  fileName: string;
  pageNumber: string;
}

export interface OpenedFile {
  fileName: string;
  contentType: string;
  /** `inline` for what browsers show safely (PDF, plain text), else `attachment`. */
  disposition: 'inline' | 'attachment';
  data: Buffer;
}

const CONTENT_TYPES: Record<string, { type: string; inline: boolean }> = {
  pdf: { type: 'application/pdf', inline: true },
  txt: { type: 'text/plain; charset=utf-8', inline: true },
  md: { type: 'text/plain; charset=utf-8', inline: true },
  markdown: { type: 'text/plain; charset=utf-8', inline: true },
  csv: { type: 'text/plain; charset=utf-8', inline: true },
  // HTML is never served as HTML from the API's origin: it is a download.
  html: { type: 'application/octet-stream', inline: false },
  htm: { type: 'application/octet-stream', inline: false },
  docx: {
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    inline: false,
  },
  pptx: {
    type: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    inline: false,
  },
  xlsx: { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', inline: false },
};

export function isPdfName(fileName: string): boolean {
  return /\.pdf$/i.test(fileName);
}

function extensionOf(fileName: string): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(fileName);
  return m ? m[1].toLowerCase() : '';
}

/**
 * The `source` links of chatbot citations: `{base}/api/v1/chatbot/files/{token}` (+ `#page=N` for
 * PDFs, so the browser's viewer opens the cited page), where the token is signed and expires
 * (CHATBOT_FILE_LINK_TTL_SECONDS). Opening one downloads the original file from its source with
 * the connector and the credentials of the run that indexed it; the file never has to be public.
 */
/** Lifetime of a citation's signed file link: a day, long enough to reopen the answer later. */
export const CHATBOT_FILE_LINK_TTL_SECONDS = 86_400;

@Injectable()
export class ChatbotFilesService {
  private readonly logger = new Logger('ChatbotFiles');
  private readonly links: FileLinkSigner;

  constructor(
    private readonly documents: DocumentCatalog,
    private readonly connectors: SourceConnectorRegistry,
    private readonly cipher: SourceCredentialsCipher,
    private readonly clock: ChatbotClock,
    @Inject(CORE_CONFIG) private readonly core: CoreConfig,
    @Inject(INDEXING_CONFIG) private readonly indexing: IndexingConfig,
    private readonly publicBaseUrl: PublicBaseUrl,
  ) {
    this.links = new FileLinkSigner(resolveAppSecret(core));
  }

  /** The citation's link, absolute on the service's public base URL (never the request's Host). */
  linkFor(accountId: number, file: CitedFile): string {
    const expiresAt = Math.floor(this.clock.now() / 1000) + CHATBOT_FILE_LINK_TTL_SECONDS;
    const token = this.links.sign({ accountId, documentId: file.documentId, expiresAt });
    const page = isPdfName(file.fileName) && /^\d+$/.test(file.pageNumber) ? `#page=${file.pageNumber}` : '';
    return `${this.publicBaseUrl.get()}/api/v1/chatbot/files/${token}${page}`;
  }

  /** 404 for an invalid or expired link or a document that is gone; 503 when the source is down. */
  async open(token: string): Promise<OpenedFile> {
    const claims = this.links.verify(token, this.clock.now());
    if (!claims) throw DomainError.notFound('This file link is invalid or has expired');
    const row = await this.documents.servedDocumentSource(claims.accountId, claims.documentId);
    if (!row) throw DomainError.notFound('This file is no longer available');
    const connector = this.connectors.get(row.sourceType);
    let data: Buffer;
    try {
      const raw =
        row.credentialsEnc && row.runId ? this.cipher.decrypt(row.credentialsEnc, row.runId) : undefined;
      ({ data } = await connector.download(
        connector.parseCredentials(raw, { accountId: claims.accountId, docSetName: row.docSetName }),
        row.sourceId,
        this.indexing.maxFileBytes,
      ));
    } catch (err) {
      throw this.sourceFailure(err, claims.documentId);
    }
    const kind = CONTENT_TYPES[extensionOf(row.fileName)] ?? {
      type: 'application/octet-stream',
      inline: false,
    };
    return {
      fileName: row.fileName,
      contentType: kind.type,
      disposition: kind.inline ? 'inline' : 'attachment',
      data,
    };
  }

  private sourceFailure(err: unknown, documentId: string): DomainError {
    if (err instanceof DomainError) return err;
    if (err instanceof SourceError) {
      this.logger.warn({ documentId, errName: err.name }, 'cited file could not be downloaded');
      if (err.kind === 'UNAVAILABLE')
        return new DomainError(
          ErrorCode.DEPENDENCY_UNAVAILABLE,
          'The document source is unavailable; try again later',
        );
      if (err.kind === 'TOO_LARGE')
        return new DomainError(ErrorCode.UNPROCESSABLE, 'The file is too large to serve');
      return DomainError.notFound('This file is no longer available in its source');
    }
    this.logger.warn({ documentId, errName: (err as Error)?.name }, 'cited file could not be downloaded');
    return new DomainError(
      ErrorCode.DEPENDENCY_UNAVAILABLE,
      'The document source is unavailable; try again later',
    );
  }
}
