import { Controller, Get, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { ApiTokenAuth } from '@docqa/accounts';
import { evaluateKeywordRouting } from '@docqa/search';
import { KeywordRoutingEvaluationDto, KeywordRoutingQueryDto } from './keyword-routing.dto';

@ApiTags('Document API: questions')
@Controller('api/v1/document_proxy')
@ApiTokenAuth()
export class KeywordRoutingController {
  @Get('keyword-routing/evaluate')
  @ApiOperation({
    summary:
      'Keyword routing evaluation: whether a question would skip the rewriter (1-5 words, no punctuation, ' +
      'no history, no promptContext). Runs no retrieval.',
  })
  @ApiOkResponse({ type: KeywordRoutingEvaluationDto })
  @ApiBadRequestResponse({ description: '`{ message, errorCode: "VALIDATION_ERROR", field: "q" }`' })
  @ApiUnauthorizedResponse({ description: '`{ message, errorCode: "UNAUTHENTICATED" }`' })
  evaluate(@Query() dto: KeywordRoutingQueryDto): KeywordRoutingEvaluationDto {
    // A standalone evaluation has no conversation: no history and no promptContext.
    return evaluateKeywordRouting(dto.q, { hasHistory: false, hasPromptContext: false });
  }
}
