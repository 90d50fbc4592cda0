import { Module } from '@nestjs/common';
import { DocsetCatalog } from './docset.catalog';
import { DocumentCatalog } from './document.catalog';

/**
 * The catalog: the one owner of docset and document reads (docs/data-ownership.md). Needs DbModule
 * in the application. Writes to documents and index_runs belong to indexing's stores.
 */
@Module({
  providers: [DocsetCatalog, DocumentCatalog],
  exports: [DocsetCatalog, DocumentCatalog],
})
export class CatalogModule {}
