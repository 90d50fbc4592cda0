import { SOURCE_TYPES } from '@docqa/db';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { DOCSET_NAME_RULE, IsDocsetName } from '@docqa/catalog';
import { RECENT_LIMIT } from '@docqa/rag';

export class ListDocumentsQueryDto {
  @ApiProperty({
    description: `The docset whose documents are listed. ${DOCSET_NAME_RULE}`,
    example: 'manuals',
  })
  @IsDocsetName()
  docSetName!: string;

  @ApiPropertyOptional({
    description: 'Extension: page size (default: all documents).',
    minimum: 1,
    maximum: 10000,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be between 1 and 10000' })
  @Max(10000, { message: 'limit must be between 1 and 10000' })
  limit?: number;

  @ApiPropertyOptional({
    description: 'Extension: documents skipped (by file name order).',
    minimum: 0,
    maximum: 1_000_000,
    default: 0,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'offset must be an integer' })
  @Min(0, { message: 'offset must be at least 0' })
  @Max(1_000_000, { message: 'offset must be at most 1000000' })
  offset?: number;
}

export class RecentDocumentsQueryDto {
  @ApiPropertyOptional({
    description: 'Number of documents, newest first.',
    minimum: RECENT_LIMIT.min,
    maximum: RECENT_LIMIT.max,
    default: RECENT_LIMIT.default,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(RECENT_LIMIT.min, { message: `limit must be between ${RECENT_LIMIT.min} and ${RECENT_LIMIT.max}` })
  @Max(RECENT_LIMIT.max, { message: `limit must be between ${RECENT_LIMIT.min} and ${RECENT_LIMIT.max}` })
  limit?: number;
}

export class DocumentDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;
  @ApiProperty({ example: 'geometry.pdf' })
  fileName!: string;
  @ApiProperty({ example: 'manuals' })
  docSetName!: string;
  @ApiProperty({
    enum: SOURCE_TYPES,
    description: 'Source type of the document (UPLOAD: an extension, files sent to POST /index/upload).',
  })
  source!: string;
  @ApiProperty({ enum: ['PENDING', 'INDEXING', 'COMPLETE', 'ERROR', 'CANCELLED'] })
  indexingStatus!: string;
  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class DocsetDto {
  @ApiProperty({ example: 'manuals' })
  docSetName!: string;
  @ApiProperty({ type: [String], example: ['S3'], description: 'Source types of its documents.' })
  sourceTypes!: string[];
  @ApiProperty({ description: 'Documents of the docset, any status.' })
  documentCount!: number;
  @ApiProperty({
    description:
      'Documents with indexingStatus COMPLETE. 0 while every document is re-indexed: the docset still exists, ' +
      'its previous versions answer until the new ones complete.',
  })
  completedCount!: number;
  @ApiProperty()
  pendingCount!: number;
  @ApiProperty()
  indexingCount!: number;
  @ApiProperty()
  errorCount!: number;
  @ApiProperty()
  cancelledCount!: number;
  @ApiProperty({ description: 'Pages of its COMPLETE documents.' })
  pageCount!: number;
  @ApiProperty({
    description: 'Chunks search serves for its documents (the previous version while re-indexed).',
  })
  chunkCount!: number;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When a document last finished indexing.',
  })
  lastIndexedAt!: string | null;
  @ApiProperty({ format: 'date-time', description: 'When its first document was created.' })
  createdAt!: string;
  @ApiProperty({ format: 'date-time', description: 'Last change of any of its documents.' })
  updatedAt!: string;
}

export class FileTypeCountDto {
  @ApiProperty({ example: 'pdf' })
  fileType!: string;
  @ApiProperty()
  documentCount!: number;
}

export class SourceCountDto {
  @ApiProperty({ enum: SOURCE_TYPES })
  sourceType!: string;
  @ApiProperty()
  documentCount!: number;
}

export class DocumentSummaryDto {
  @ApiProperty({ format: 'uuid' })
  documentId!: string;
  @ApiProperty()
  fileName!: string;
  @ApiProperty({ description: 'Summary written at indexing time.' })
  summary!: string;
}

export class FilingDto {
  @ApiProperty({ format: 'uuid' })
  documentId!: string;
  @ApiProperty()
  fileName!: string;
  @ApiPropertyOptional({ description: 'The registrant as the cover names it.', example: '3M COMPANY' })
  company?: string;
  @ApiPropertyOptional({
    description:
      "The trading symbol of the registrant's common stock, from the cover (filings since 2019 print it).",
    example: 'MMM',
  })
  ticker?: string;
  @ApiPropertyOptional({
    description: 'The form: 10-K, 10-Q, 8-K, 20-F, ... or `earnings release`.',
    example: '10-K',
  })
  form?: string;
  @ApiPropertyOptional({
    description: 'End of the period reported on (the report date of an 8-K), YYYY-MM-DD.',
    example: '2018-12-31',
  })
  periodEnd?: string;
  @ApiPropertyOptional({ description: 'Fiscal year reported on.', example: 2018 })
  fiscalYear?: number;
  @ApiPropertyOptional({ description: 'Fiscal quarter (1-4), where the filing states it.', example: 2 })
  fiscalQuarter?: number;
}

export class StatusCountsDto {
  @ApiProperty() PENDING!: number;
  @ApiProperty() INDEXING!: number;
  @ApiProperty() COMPLETE!: number;
  @ApiProperty() ERROR!: number;
  @ApiProperty() CANCELLED!: number;
}

export class DocsetMetadataDto extends DocsetDto {
  @ApiProperty({ type: StatusCountsDto, description: 'Documents by indexingStatus.' })
  statusCounts!: StatusCountsDto;
  @ApiProperty({ description: 'Bytes of its source files.' })
  totalBytes!: number;
  @ApiProperty({ type: [FileTypeCountDto] })
  fileTypes!: FileTypeCountDto[];
  @ApiProperty({ type: [SourceCountDto] })
  sources!: SourceCountDto[];
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When a document first finished indexing.',
  })
  firstIndexedAt!: string | null;
  @ApiProperty({ description: 'COMPLETE documents that have a summary.' })
  summaryCount!: number;
  @ApiProperty({
    type: [DocumentSummaryDto],
    description: 'Summaries of COMPLETE documents by file name, at most 100.',
  })
  summaries!: DocumentSummaryDto[];
  @ApiProperty({
    type: [FilingDto],
    description:
      'Company, form and period of the COMPLETE documents that are filings (read from their cover pages at indexing ' +
      'time; they route questions that name a company and period), by file name, at most 100. An extension.',
  })
  filings!: FilingDto[];
}
