import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiProperty,
  ApiPropertyOptional,
  ApiServiceUnavailableResponse,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { SOURCE_TYPES, type SourceType } from '@docqa/db';
import { DOCSET_NAME_MAX, DOCSET_NAME_RULE, IsDocsetName } from '@docqa/catalog';
import { INDEXABLE_FILE_TYPES, type IndexableFileType } from '@docqa/sources';

export class IndexOptionsDto {
  @ApiPropertyOptional({
    enum: INDEXABLE_FILE_TYPES,
    isArray: true,
    description: 'File types to include (by extension). Default: all of them.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(INDEXABLE_FILE_TYPES.length)
  @IsIn(INDEXABLE_FILE_TYPES, { each: true })
  targetIndexTypes?: IndexableFileType[];

  @ApiPropertyOptional({ description: 'Re-index every listed file, changed or not. Default false.' })
  @IsOptional()
  @IsBoolean()
  forceReindex?: boolean;

  @ApiPropertyOptional({
    default: true,
    description:
      'Read PDF pages that have no text layer (scans) by OCR. false: such a page stays empty, and a PDF ' +
      'without any text ends ERROR.',
  })
  @IsOptional()
  @IsBoolean()
  ocr?: boolean;
}

export class SourceRequestDto {
  @ApiProperty({ maxLength: DOCSET_NAME_MAX, description: DOCSET_NAME_RULE, example: 'handbooks' })
  @IsDocsetName()
  docSetName: string;

  @ApiPropertyOptional({
    enum: SOURCE_TYPES,
    default: 'S3',
    description:
      'UPLOAD (extension): re-read the files uploaded to the docset (POST /index/upload); no credentials.',
  })
  @IsOptional()
  @IsIn(SOURCE_TYPES)
  sourceType?: SourceType;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'S3: `{ accessKeyId, secretAccessKey, sessionToken?, region?, bucket, prefix? }`; omit (or send only `{ prefix }`) ' +
      'when the server has S3_BUCKET. The endpoint is server configuration: `endpoint`, `host` or `url` fields are a 400. ' +
      'Stored encrypted for the run, never returned.',
  })
  @IsOptional()
  @IsObject()
  credentials?: Record<string, unknown>;

  @ApiPropertyOptional({ type: IndexOptionsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => IndexOptionsDto)
  indexOptions?: IndexOptionsDto;
}

export class IndexRequestDto extends SourceRequestDto {
  @ApiPropertyOptional({
    default: true,
    description: 'true: queue and return the jobId; false: wait for the run.',
  })
  @IsOptional()
  @IsBoolean()
  async?: boolean;

  @ApiPropertyOptional({ maxLength: 200, description: 'Account/tenant label stored with the run.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  // eslint-disable-next-line no-control-regex
  @Matches(/^[^\u0000-\u001f\u007f]*$/, { message: 'accountName must not contain control characters' })
  accountName?: string;

  @ApiPropertyOptional({
    example: 'local',
    description:
      'Model for the per-document summary (documents.summary). `local`: lead sentences of the document.',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/, { message: 'summaryModel must be a model name' })
  summaryModel?: string;
}

export class DeleteDocsetsDto {
  @ApiProperty({ type: [String], example: ['handbooks'], description: DOCSET_NAME_RULE })
  @IsArray({ message: 'docSetNames must be an array of docset names' })
  @ArrayNotEmpty({ message: 'docSetNames must not be empty' })
  @ArrayMaxSize(100, { message: 'docSetNames may name at most 100 docsets' })
  @IsDocsetName({ each: true })
  docSetNames: string[];
}

export class IndexAckDto {
  @ApiProperty() message: string;
  @ApiProperty() docSetName: string;
  @ApiProperty({ description: 'Run id; follow it with GET /index/progress/{docSetName}.' }) jobId: string;
}

export class RunCountsDto {
  @ApiProperty({ description: 'Supported files of the requested types in the source.' }) listed: number;
  @ApiProperty() new: number;
  @ApiProperty() changed: number;
  @ApiProperty({ description: 'Listed files skipped because they did not change.' }) unchanged: number;
  @ApiProperty({ description: 'Documents removed because they left the source.' }) removed: number;
  @ApiProperty() completed: number;
  @ApiProperty() failed: number;
  @ApiProperty() cancelled: number;
}

export class IndexSyncResultDto extends IndexAckDto {
  @ApiProperty({ enum: ['COMPLETED', 'FAILED', 'CANCELLED'] }) status: string;
  @ApiProperty({ type: RunCountsDto }) counts: RunCountsDto;
  @ApiPropertyOptional({ description: 'Why the run failed.' }) error?: string;
}

export class RetryAckDto extends IndexAckDto {
  @ApiProperty() documentId: string;
}

export class SourceCheckResultDto {
  @ApiProperty({ description: 'Supported files (of the requested types) in the source.' })
  sourceFileCount: number;
  @ApiProperty({
    description:
      'Supported files by type, e.g. `{ "pdf": 12, "pptx": 3, "xlsx": 2 }` (types without files are absent).',
    type: 'object',
    additionalProperties: { type: 'integer' },
  })
  fileTypeCounts: Record<string, number>;
  @ApiProperty({
    description:
      'Supported files larger than the per-file limit (INDEXING_MAX_FILE_BYTES): counted in sourceFileCount, they end ERROR with the limit as reason.',
  })
  tooLargeFileCount: number;
  @ApiProperty() existingDocumentCount: number;
  @ApiProperty() message: string;
}

export class IndexingProgressDto {
  @ApiProperty({ description: 'Waiting for a run (PENDING, or CANCELLED by a cancelled run).' })
  pendingCount: number;
  @ApiProperty() indexingCount: number;
  @ApiProperty() completedCount: number;
  @ApiProperty() errorCount: number;
  @ApiProperty({ description: 'A run (or a retry) of the docset is open.' }) isIndexing: boolean;
}

export class DeleteDocsetsResultDto {
  @ApiProperty() message: string;
  @ApiProperty({ type: [String] }) docSetNames: string[];
  @ApiProperty() deletedDocumentCount: number;
}

export class LastRunDto {
  @ApiProperty() jobId: string;
  @ApiProperty({ enum: ['sync', 'retry'] }) kind: string;
  @ApiProperty({ enum: ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] }) status: string;
  @ApiProperty() startedAt: string;
  @ApiProperty({ nullable: true, type: String }) finishedAt: string | null;
  @ApiProperty({ nullable: true, type: String }) error: string | null;
  @ApiProperty({ type: RunCountsDto }) counts: RunCountsDto;
}

export class DocsetIndexingSummaryDto extends IndexingProgressDto {
  @ApiProperty() docSetName: string;
  @ApiProperty({ type: [String] }) sourceTypes: string[];
  @ApiProperty({
    description:
      'The docset exists: one of its documents has a served indexed version (COMPLETE, or being re-indexed).',
  })
  exists: boolean;
  @ApiProperty() documentCount: number;
  @ApiProperty({ type: LastRunDto, nullable: true }) lastRun: LastRunDto | null;
}

export class IndexingTotalsDto {
  @ApiProperty() docSetCount: number;
  @ApiProperty() documentCount: number;
  @ApiProperty() pendingCount: number;
  @ApiProperty() indexingCount: number;
  @ApiProperty() completedCount: number;
  @ApiProperty() errorCount: number;
  @ApiProperty({ description: 'Docsets with an open run.' }) indexingDocSetCount: number;
}

export class IndexingSummaryDto {
  @ApiProperty({ type: [DocsetIndexingSummaryDto] }) docSets: DocsetIndexingSummaryDto[];
  @ApiProperty({ type: IndexingTotalsDto }) totals: IndexingTotalsDto;
}

const BODY = (code: string) => `\`{ message, errorCode: "${code}" }\``;

/** OpenAPI error responses of the indexing endpoints (Document API error body). */
export function IndexingErrors(...statuses: Array<400 | 401 | 403 | 404 | 409 | 422 | 503>) {
  const map = {
    400: ApiBadRequestResponse({ description: '`{ message, errorCode: "VALIDATION_ERROR", field }`' }),
    401: ApiUnauthorizedResponse({ description: BODY('UNAUTHENTICATED') }),
    403: ApiForbiddenResponse({
      description: `${BODY('FORBIDDEN')}: read-only token, or a docset outside the account`,
    }),
    404: ApiNotFoundResponse({ description: BODY('NOT_FOUND') }),
    409: ApiConflictResponse({ description: `${BODY('INDEXING_IN_PROGRESS')} or ${BODY('CONFLICT')}` }),
    422: ApiUnprocessableEntityResponse({
      description: `${BODY('SOURCE_UNREACHABLE')} or ${BODY('SOURCE_EMPTY')}`,
    }),
    503: ApiServiceUnavailableResponse({
      description: `${BODY('CAPABILITY_DISABLED')} (source type not available) or ${BODY('DEPENDENCY_UNAVAILABLE')}`,
    }),
  };
  return applyDecorators(...statuses.map((s) => map[s]));
}
