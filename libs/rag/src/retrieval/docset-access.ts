import { Injectable } from '@nestjs/common';
import { DomainError } from '@docqa/common';
import { DocsetCatalog } from '@docqa/catalog';
import type { AskScope } from '../ask/ask.types';

/**
 * Whether a caller may read the docsets it names (/ask, /search, the chatbot): before anything is
 * retrieved, 403 FORBIDDEN for a docset outside the scope or not the account's.
 */
@Injectable()
export class DocsetAccess {
  constructor(private readonly docsets: DocsetCatalog) {}

  /**
   * A docset is the caller's when its scope allows it and the account has a served document in it
   * (COMPLETE, or re-indexing with its previous version still answering: `documentServedSql` in
   * libs/catalog, the one definition of docset existence). A scope that carries the served docsets
   * (read at the edge for this request) is checked against them without reading them again.
   */
  async authorize(asker: AskScope, docSetNames: readonly string[]): Promise<void> {
    const allowed = asker.allowedDocSetNames;
    if (allowed !== null && docSetNames.some((n) => !allowed.includes(n)))
      throw DomainError.forbidden('This API token is not allowed to use the requested docsets');
    const owned = new Set(
      asker.servedDocSetNames ?? (await this.docsets.existingDocsetNames(asker.accountId, docSetNames)),
    );
    if (docSetNames.some((n) => !owned.has(n))) {
      throw DomainError.forbidden('A docset in docSetNames does not belong to this account');
    }
  }
}
