import { Inject, Injectable } from '@nestjs/common';
import { DocsetCatalog } from '@docqa/catalog';
import { DomainError, ErrorCode, INDEXING_CONFIG, IndexingConfig } from '@docqa/common';
import {
  fileTypeOf,
  INDEXABLE_FILE_TYPES,
  isIncremental,
  SourceConnector,
  SourceConnectorRegistry,
  SourceError,
  SourceSync,
} from '@docqa/sources';
import { LISTING_PAGE_SIZE } from '../pipeline/docset-pipeline';
import { fileLimitText } from '../pipeline/file-size-limit';
import { CheckSourceCommand, SourceCheckResult } from './indexing.commands';

function sourceFailure(err: unknown): never {
  if (err instanceof SourceError)
    throw new DomainError(ErrorCode.SOURCE_UNREACHABLE, `The source could not be reached: ${err.message}`);
  throw err;
}

interface SupportedFiles {
  count: number;
  byType: Record<string, number>;
  /** Supported files over INDEXING_MAX_FILE_BYTES: listed, and ending ERROR with the limit as reason. */
  tooLarge: number;
}

/**
 * POST /index/check-source: is the source reachable, how many supported files does it have (by
 * type), and how many of them are over the per-file size limit?
 * Also the check before a run of a SharePoint or Google Drive source that an emptied source does
 * not wipe a docset.
 */
@Injectable()
export class CheckSource {
  constructor(
    private readonly docsets: DocsetCatalog,
    private readonly connectors: SourceConnectorRegistry,
    private readonly sync: SourceSync,
    @Inject(INDEXING_CONFIG) private readonly indexing: IndexingConfig,
  ) {}

  async check(accountId: number, cmd: CheckSourceCommand): Promise<SourceCheckResult> {
    const connector = this.connectors.get(cmd.sourceType);
    const credentials = connector.parseCredentials(cmd.credentials, {
      accountId,
      docSetName: cmd.docSetName,
    });
    const types = new Set<string>(cmd.targetIndexTypes?.length ? cmd.targetIndexTypes : INDEXABLE_FILE_TYPES);
    const found = await this.countSupported(connector, credentials, types);
    const existingDocumentCount = await this.docsets.documentCount(accountId, cmd.docSetName);
    const tooLarge = found.tooLarge
      ? ` (${found.tooLarge} larger than ${fileLimitText(this.indexing.maxFileBytes)}: they will end ERROR)`
      : '';
    return {
      sourceFileCount: found.count,
      fileTypeCounts: found.byType,
      tooLargeFileCount: found.tooLarge,
      existingDocumentCount,
      message: `The source is reachable: ${found.count} supported files${tooLarge}; the docset has ${existingDocumentCount} documents`,
    };
  }

  /** SOURCE_EMPTY when the source has no supported files while the docset has documents (and no change feed explains it). */
  async assertNotEmptied(
    accountId: number,
    docSetName: string,
    connector: SourceConnector,
    credentials: unknown,
    fileTypes: string[],
  ): Promise<void> {
    const found = await this.countSupported(connector, credentials, new Set(fileTypes));
    if (
      found.count === 0 &&
      (await this.docsets.documentCount(accountId, docSetName)) > 0 &&
      // Emptied at the source: the change feed reports every document's file deleted.
      !(
        isIncremental(connector) &&
        (await this.sync
          .emptinessExplained(accountId, docSetName, connector, credentials)
          .catch(sourceFailure))
      )
    )
      throw new DomainError(
        ErrorCode.SOURCE_EMPTY,
        'The source has no supported files while the docset already has documents; nothing was changed',
      );
  }

  private async countSupported(
    connector: SourceConnector,
    credentials: unknown,
    types: Set<string>,
  ): Promise<SupportedFiles> {
    try {
      await connector.check(credentials);
      const found: SupportedFiles = { count: 0, byType: {}, tooLarge: 0 };
      let token: string | null = null;
      do {
        const page = await connector.listPage(credentials, token, LISTING_PAGE_SIZE);
        for (const o of page.objects) {
          const t = fileTypeOf(o.fileName);
          if (!t || !types.has(t)) continue;
          found.count++;
          found.byType[t] = (found.byType[t] ?? 0) + 1;
          if (o.sizeBytes > this.indexing.maxFileBytes) found.tooLarge++;
        }
        token = page.nextPageToken;
      } while (token);
      return found;
    } catch (err) {
      return sourceFailure(err);
    }
  }
}
