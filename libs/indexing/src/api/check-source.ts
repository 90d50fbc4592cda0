import { Injectable } from '@nestjs/common';
import { DocsetCatalog } from '@docqa/catalog';
import { DomainError, ErrorCode } from '@docqa/common';
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
import { CheckSourceCommand, SourceCheckResult } from './indexing.commands';

function sourceFailure(err: unknown): never {
  if (err instanceof SourceError)
    throw new DomainError(ErrorCode.SOURCE_UNREACHABLE, `The source could not be reached: ${err.message}`);
  throw err;
}

/**
 * POST /index/check-source: is the source reachable, and how many supported files does it have?
 * Also the check before a run of a SharePoint or Google Drive source that an emptied source does
 * not wipe a docset.
 */
@Injectable()
export class CheckSource {
  constructor(
    private readonly docsets: DocsetCatalog,
    private readonly connectors: SourceConnectorRegistry,
    private readonly sync: SourceSync,
  ) {}

  async check(accountId: number, cmd: CheckSourceCommand): Promise<SourceCheckResult> {
    const connector = this.connectors.get(cmd.sourceType);
    const credentials = connector.parseCredentials(cmd.credentials, {
      accountId,
      docSetName: cmd.docSetName,
    });
    const types = new Set<string>(cmd.targetIndexTypes?.length ? cmd.targetIndexTypes : INDEXABLE_FILE_TYPES);
    const sourceFileCount = await this.countSupported(connector, credentials, types);
    const existingDocumentCount = await this.docsets.documentCount(accountId, cmd.docSetName);
    return {
      sourceFileCount,
      existingDocumentCount,
      message: `The source is reachable: ${sourceFileCount} supported files; the docset has ${existingDocumentCount} documents`,
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
      found === 0 &&
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
  ): Promise<number> {
    try {
      await connector.check(credentials);
      let count = 0;
      let token: string | null = null;
      do {
        const page = await connector.listPage(credentials, token, LISTING_PAGE_SIZE);
        for (const o of page.objects) {
          const t = fileTypeOf(o.fileName);
          if (t && types.has(t)) count++;
        }
        token = page.nextPageToken;
      } while (token);
      return count;
    } catch (err) {
      return sourceFailure(err);
    }
  }
}
