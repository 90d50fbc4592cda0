import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const DOCUMENT_STATUSES = ['PENDING', 'INDEXING', 'COMPLETE', 'ERROR', 'CANCELLED'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
/** `UPLOAD` (an extension): files uploaded with POST /index/upload into the account's upload store. */
export const SOURCE_TYPES = ['S3', 'SHAREPOINT', 'GOOGLEDRIVE', 'UPLOAD'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

@Entity('documents')
export class DocumentEntity {
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'account_id' }) accountId: number;
  @Column({ name: 'docset_name' }) docSetName: string;
  @Column({ name: 'file_name' }) fileName: string;
  @Column({ name: 'source_type', type: 'text' }) sourceType: SourceType;
  /** Stable id of the file in its source (S3 key, Graph item id, Drive file id). */
  @Column({ name: 'source_id' }) sourceId: string;
  @Column({ name: 'source_path', type: 'text', default: '' }) sourcePath: string;
  @Column({ name: 'source_metadata', type: 'jsonb', default: () => "'{}'" }) sourceMetadata: Record<
    string,
    unknown
  >;
  @Column({ type: 'text', nullable: true }) etag: string | null;
  @Column({ name: 'content_hash', type: 'text', nullable: true }) contentHash: string | null;
  @Column({ type: 'text', default: 'PENDING' }) status: DocumentStatus;
  @Column({ name: 'file_type', type: 'text', default: '' }) fileType: string;
  @Column({ name: 'size_bytes', type: 'bigint', nullable: true }) sizeBytes: string | null;
  @Column({ name: 'page_count', type: 'int', nullable: true }) pageCount: number | null;
  @Column({ name: 'chunk_count', type: 'int', nullable: true }) chunkCount: number | null;
  /** Generation `chunk_count` describes: the latest one written or being written. */
  @Column({ name: 'chunk_generation', type: 'int', default: 0 }) chunkGeneration: number;
  /** Generation search answers from; null while no version of the document is indexed. */
  @Column({ name: 'served_generation', type: 'int', nullable: true }) servedGeneration: number | null;
  @Column({ name: 'served_chunk_count', type: 'int', nullable: true }) servedChunkCount: number | null;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ type: 'text', nullable: true }) summary: string | null;
  /** Title from the file's metadata (a PDF's Title), when it has one. */
  @Column({ type: 'text', nullable: true }) title: string | null;
  @Column({ name: 'last_run_id', type: 'uuid', nullable: true }) lastRunId: string | null;
  @Column({ name: 'indexed_at', type: 'timestamptz', nullable: true }) indexedAt: Date | null;
  /** `<model>:<dimensions>` of the chunks in the index (see the EmbeddingSpace migration). */
  @Column({ name: 'embedding_space', type: 'text', nullable: true }) embeddingSpace: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}

/** Extracted text per physical page (1-based), so workflow payloads carry ids, never text. */
@Entity('document_pages')
export class DocumentPageEntity {
  @PrimaryColumn({ name: 'document_id', type: 'uuid' }) documentId: string;
  @PrimaryColumn({ name: 'page_number', type: 'int' }) pageNumber: number;
  @Column({ type: 'text' }) text: string;
}
