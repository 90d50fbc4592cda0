import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiTokenAuth, AuthContext, CurrentAuth } from '@docqa/accounts';
import { ASK_LIMITS, SEARCH_LIMITS, SearchService } from '@docqa/rag';
import { DocumentApiErrors } from './ask.dto';
import { SearchDto, SearchResponseDto } from './search.dto';

@ApiTags('Document API: questions')
@Controller('api/v1/document_proxy')
@ApiTokenAuth()
export class SearchController {
  constructor(private readonly service: SearchService) {}

  @Post('search')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Extension: the passages /ask would answer from, ranked, without an answer.',
    description:
      'Not part of the reference Document API (an extension of this product). Runs the retrieval of /ask on `query` ' +
      '(as a question without history): keyword routing, the rewrite when the route needs it, hybrid retrieval ' +
      'with document routing, diversity across documents for list and compare questions, and the reranker when ' +
      "one is configured; returns the top `limit` passages with the source fields of /ask's citations and their " +
      "score. Every docset must be the caller's (403 FORBIDDEN otherwise, before anything is retrieved). See docs/ask.md.",
  })
  @ApiOkResponse({ type: SearchResponseDto })
  @DocumentApiErrors(400, 401, 403, 503)
  search(@CurrentAuth() auth: AuthContext, @Body() dto: SearchDto): Promise<SearchResponseDto> {
    return this.service.search(
      // The token decides the scope here, at the edge: its account and its docset restriction.
      { accountId: auth.accountId, allowedDocSetNames: auth.scope.docSetNames },
      {
        query: dto.query,
        docSetNames: [...new Set(dto.docSetNames)],
        limit: dto.limit ?? SEARCH_LIMITS.limit.default,
        minimumSimilarityScore:
          dto.config?.minimumSimilarityScore ?? ASK_LIMITS.minimumSimilarityScore.default,
      },
    );
  }
}
