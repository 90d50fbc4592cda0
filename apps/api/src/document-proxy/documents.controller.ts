import { Controller, Get, Next, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { NextFunction, Response } from 'express';
import { ApiTokenAuth, AuthContext, CurrentAuth } from '@docqa/accounts';
import { assertDocsetName } from '@docqa/catalog';
import { DocumentsService, isDocumentId, RECENT_LIMIT } from '@docqa/rag';
import { DocumentApiErrors } from './ask.dto';
import {
  DocsetDto,
  DocsetMetadataDto,
  DocumentDto,
  ListDocumentsQueryDto,
  RecentDocumentsQueryDto,
} from './documents.dto';

/**
 * The Document API's document reads, scoped to the caller's account and token. `documents/{id}`
 * only takes document ids (UUIDs): any other segment falls through to the next route, so it never
 * shadows `documents/indexing-summary` (indexing) whatever the module order.
 */
@ApiTags('Document API: documents')
@Controller('api/v1/document_proxy')
@ApiTokenAuth()
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  @Get('documents')
  @ApiOperation({
    summary:
      'Documents of one docset (any indexing status), by file name. 403 FORBIDDEN when the account has no ' +
      'documents or index runs in the docset (or the token is restricted to other docsets).',
  })
  @ApiOkResponse({ type: [DocumentDto] })
  @DocumentApiErrors(400, 401, 403)
  list(@CurrentAuth() auth: AuthContext, @Query() q: ListDocumentsQueryDto): Promise<DocumentDto[]> {
    return this.documents.listByDocset(auth, q.docSetName, { limit: q.limit, offset: q.offset });
  }

  @Get('documents/recent')
  @ApiOperation({
    summary:
      "The caller's most recently created documents, newest first. Filtered to the caller before the limit, so " +
      '`limit` documents come back whenever the caller has that many.',
  })
  @ApiOkResponse({ type: [DocumentDto] })
  @DocumentApiErrors(400, 401)
  recent(@CurrentAuth() auth: AuthContext, @Query() q: RecentDocumentsQueryDto): Promise<DocumentDto[]> {
    return this.documents.recent(auth, q.limit ?? RECENT_LIMIT.default);
  }

  @Get('documents/docsets')
  @ApiOperation({
    summary:
      "The caller's docsets (those with a served document: COMPLETE, or being re-indexed) with source types and counts; `[]` for a " +
      'new account.',
  })
  @ApiOkResponse({ type: [DocsetDto] })
  @DocumentApiErrors(401)
  docsets(@CurrentAuth() auth: AuthContext): Promise<DocsetDto[]> {
    return this.documents.docsets(auth);
  }

  @Get('documents/metadata/:docSetName')
  @ApiOperation({
    summary:
      'Aggregate metadata of one docset: counts by status, pages, chunks, bytes, file types, sources, first/last ' +
      'indexed, document summaries.',
  })
  @ApiParam({ name: 'docSetName' })
  @ApiOkResponse({ type: DocsetMetadataDto })
  @DocumentApiErrors(400, 401, 403)
  metadata(
    @CurrentAuth() auth: AuthContext,
    @Param('docSetName') docSetName: string,
  ): Promise<DocsetMetadataDto> {
    return this.documents.metadata(auth, assertDocsetName(docSetName));
  }

  @Get('documents/:id')
  @ApiOperation({
    summary:
      "One document. 404 NOT_FOUND when the id is unknown or the document is not in one of the caller's docsets.",
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: DocumentDto })
  @DocumentApiErrors(401, 404)
  async get(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Res() res: Response,
    @Next() next: NextFunction,
  ): Promise<void> {
    if (!isDocumentId(id)) return next();
    res.json(await this.documents.get(auth, id));
  }
}
