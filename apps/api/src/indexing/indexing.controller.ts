import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { assertDocsetName } from '@docqa/catalog';
import { DomainError } from '@docqa/common';
import {
  ApiTokenAuth,
  assertDocsetsAllowed,
  AuthContext,
  CurrentAuth,
  isDocsetAllowed,
  RequireWrite,
} from '@docqa/accounts';
import {
  CancelIndexing,
  CheckSource,
  DeleteDocsets,
  IndexingStatus,
  RetryDocument,
  StartIndexing,
} from '@docqa/indexing';
import { sharePointFolderFilter } from '@docqa/sources';
import {
  DeleteDocsetsDto,
  DeleteDocsetsResultDto,
  IndexAckDto,
  IndexingErrors,
  IndexingProgressDto,
  IndexingSummaryDto,
  IndexRequestDto,
  IndexSyncResultDto,
  RetryAckDto,
  SourceCheckResultDto,
  SourceRequestDto,
} from './indexing.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Indexing operations of the Document API ({api_url} = /api/v1/document_proxy). Thin: each
 * handler checks the token's scope and makes one call into its use case (libs/indexing/src/api:
 * StartIndexing, CheckSource, CancelIndexing, RetryDocument, DeleteDocsets, IndexingStatus).
 */
@ApiTags('Document API: indexing')
@Controller('api/v1/document_proxy')
@ApiTokenAuth()
export class IndexingController {
  constructor(
    private readonly startIndexing: StartIndexing,
    private readonly sourceCheck: CheckSource,
    private readonly cancelIndexing: CancelIndexing,
    private readonly retryDocument: RetryDocument,
    private readonly docsetDeletion: DeleteDocsets,
    private readonly status: IndexingStatus,
  ) {}

  @Post('index')
  @RequireWrite()
  @ApiOperation({
    summary:
      'Index a source into a docset. Asynchronous by default (202 with the jobId); `async: false` waits for the run ' +
      'and answers 200 with its status and counts. 409 INDEXING_IN_PROGRESS while a run of the docset is open.',
  })
  @ApiAcceptedResponse({ type: IndexAckDto })
  @ApiOkResponse({ type: IndexSyncResultDto, description: 'When `async` is false.' })
  @IndexingErrors(400, 401, 403, 409, 422, 503)
  async index(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: IndexRequestDto,
    @Res({ passthrough: true }) res: Response,
  ) {
    assertDocsetsAllowed(auth, [dto.docSetName]);
    const async = dto.async ?? true;
    res.status(async ? 202 : 200);
    return this.startIndexing.start(auth.accountId, {
      docSetName: dto.docSetName,
      sourceType: dto.sourceType ?? 'S3',
      credentials: dto.credentials,
      targetIndexTypes: dto.indexOptions?.targetIndexTypes,
      forceReindex: dto.indexOptions?.forceReindex ?? false,
      ocr: dto.indexOptions?.ocr ?? true,
      async,
      accountName: dto.accountName,
      summaryModel: dto.summaryModel,
    });
  }

  @Post('index/check-source')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check that the source is reachable and count its supported files, without indexing.',
  })
  @ApiOkResponse({ type: SourceCheckResultDto })
  @IndexingErrors(400, 401, 403, 422, 503)
  checkSource(@CurrentAuth() auth: AuthContext, @Body() dto: SourceRequestDto) {
    assertDocsetsAllowed(auth, [dto.docSetName]);
    return this.sourceCheck.check(auth.accountId, {
      docSetName: dto.docSetName,
      sourceType: dto.sourceType ?? 'S3',
      credentials: dto.credentials,
      targetIndexTypes: dto.indexOptions?.targetIndexTypes,
    });
  }

  @Post('index/cancel/:docSetName')
  @HttpCode(202)
  @RequireWrite()
  @ApiOperation({
    summary:
      'Cancel the open run of a docset: no new documents start, running ones stop and stay re-runnable, the run ends ' +
      'CANCELLED. 409 CONFLICT when no run is open.',
  })
  @ApiParam({ name: 'docSetName' })
  @ApiAcceptedResponse({ type: IndexAckDto })
  @IndexingErrors(400, 401, 403, 409)
  cancel(@CurrentAuth() auth: AuthContext, @Param('docSetName') docSetName: string) {
    assertDocsetsAllowed(auth, [assertDocsetName(docSetName)]);
    return this.cancelIndexing.cancel(auth.accountId, docSetName);
  }

  @Post('index/retry/:documentId')
  @HttpCode(202)
  @RequireWrite()
  @ApiOperation({
    summary:
      'Re-index one document in ERROR (a new run of its docset). 404 for an unknown or foreign id, 409 CONFLICT unless ' +
      'the document is in ERROR, 409 INDEXING_IN_PROGRESS while a run of the docset is open.',
  })
  @ApiParam({ name: 'documentId' })
  @ApiAcceptedResponse({ type: RetryAckDto })
  @IndexingErrors(401, 403, 404, 409)
  retry(@CurrentAuth() auth: AuthContext, @Param('documentId') documentId: string) {
    if (!UUID.test(documentId)) throw DomainError.notFound('Document not found');
    return this.retryDocument.retry(auth.accountId, documentId, (name) => isDocsetAllowed(auth, name));
  }

  @Delete('index/docsets')
  @HttpCode(200)
  @RequireWrite()
  @ApiOperation({
    summary:
      'Delete docsets: cancels their runs, then removes documents, pages and chunks. 403 FORBIDDEN when any name is ' +
      'not a docset of the account (nothing is deleted); 400 for an empty list.',
  })
  @ApiOkResponse({ type: DeleteDocsetsResultDto })
  @IndexingErrors(400, 401, 403)
  deleteDocsets(@CurrentAuth() auth: AuthContext, @Body() dto: DeleteDocsetsDto) {
    assertDocsetsAllowed(auth, dto.docSetNames);
    return this.docsetDeletion.deleteDocsets(auth.accountId, dto.docSetNames);
  }

  @Get('index/progress/:docSetName')
  @ApiOperation({ summary: 'Indexing progress of a docset, counted in Postgres.' })
  @ApiParam({ name: 'docSetName' })
  @ApiQuery({
    name: 'siteId',
    required: false,
    description: 'SharePoint folder scope: with driveId and folderPath.',
  })
  @ApiQuery({
    name: 'driveId',
    required: false,
    description: 'SharePoint folder scope: with siteId and folderPath.',
  })
  @ApiQuery({
    name: 'folderPath',
    required: false,
    description: 'SharePoint folder scope: with siteId and driveId.',
  })
  @ApiOkResponse({ type: IndexingProgressDto })
  @IndexingErrors(400, 401, 403)
  progress(
    @CurrentAuth() auth: AuthContext,
    @Param('docSetName') docSetName: string,
    @Query() query: Record<string, unknown>,
  ) {
    assertDocsetsAllowed(auth, [assertDocsetName(docSetName)]);
    return this.status.progress(auth.accountId, docSetName, sharePointFolderFilter(query));
  }

  @Get('documents/indexing-summary')
  @ApiOperation({
    summary:
      'Indexing status across the docsets of the account: per-docset counts, whether it exists, whether a run is ' +
      'open, and its last run; plus totals.',
  })
  @ApiOkResponse({ type: IndexingSummaryDto })
  @IndexingErrors(401)
  summary(@CurrentAuth() auth: AuthContext) {
    return this.status.summary(auth.accountId, (name) => isDocsetAllowed(auth, name));
  }
}
