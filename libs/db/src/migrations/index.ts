import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { AccountAuth1763800000000 } from './1763800000000-account-auth';
import { Indexing1763900000000 } from './1763900000000-indexing';
import { SourceSync1764100000000 } from './1764100000000-source-sync';
import { RunSync1764200000000 } from './1764200000000-run-sync';
import { EmbeddingSpace1764350000000 } from './1764350000000-embedding-space';
import { ServedChunks1764400000000 } from './1764400000000-served-chunks';
import { DocumentTitle1764500000000 } from './1764500000000-document-title';
import { UploadSource1764600000000 } from './1764600000000-upload-source';
import { DocumentFiling1764700000000 } from './1764700000000-document-filing';

/** Every migration, in order. New migrations are appended here. */
export const MIGRATIONS = [
  InitialSchema1763700000000,
  AccountAuth1763800000000,
  Indexing1763900000000,
  SourceSync1764100000000,
  RunSync1764200000000,
  EmbeddingSpace1764350000000,
  ServedChunks1764400000000,
  DocumentTitle1764500000000,
  UploadSource1764600000000,
  DocumentFiling1764700000000,
];
