import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiTokenAuth, AuthContext, CurrentAuth } from '@docqa/accounts';
import { APP_CONFIG, AppConfig } from '@docqa/common';
import { AskCommand, AskScope, AskService, ASK_LIMITS, SummaryService } from '@docqa/rag';
import {
  AskCitationsEventDto,
  AskDeltaEventDto,
  AskDoneEventDto,
  AskDto,
  AskErrorEventDto,
  AskResponseDto,
  DocumentApiErrors,
  SummaryDto,
  SummaryResponseDto,
} from './ask.dto';
import { answerOrStream } from '../common/sse';

/** Whether the caller asked for Server-Sent Events: `stream: true` or `Accept: text/event-stream`. */
export function wantsEventStream(dto: { stream?: boolean }, accept: string | undefined): boolean {
  if (dto.stream !== undefined) return dto.stream;
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept ?? '');
}

function toCommand(dto: AskDto, stream: boolean): AskCommand {
  return {
    question: dto.question,
    docSetNames: [...new Set(dto.docSetNames)],
    pastMessages: (dto.pastMessages ?? []).map((m) => ({ role: m.role, content: m.content })),
    promptContext: dto.promptContext,
    retrievalLimit: dto.config?.retrievalLimit ?? ASK_LIMITS.retrievalLimit.default,
    minimumSimilarityScore: dto.config?.minimumSimilarityScore ?? ASK_LIMITS.minimumSimilarityScore.default,
    model: dto.config?.model,
    stream,
  };
}

@ApiTags('Document API: questions')
@Controller('api/v1/document_proxy')
@ApiTokenAuth()
@ApiExtraModels(AskDeltaEventDto, AskCitationsEventDto, AskDoneEventDto, AskErrorEventDto)
export class AskController {
  constructor(
    private readonly ask: AskService,
    private readonly summary: SummaryService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  @Post('ask')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Retrieval-augmented question over docsets: an answer with `[n]` markers, citations and usage.',
    description:
      'Keyword routing, then (unless the question is 1-5 words without punctuation, history or promptContext) a ' +
      'rewrite into one standalone query, hybrid retrieval (BM25 + vectors, fused by a convex combination of their ' +
      'normalised scores), optional rerank, and the answer. ' +
      "Every docset must be the caller's: one with at least one COMPLETE document of the account (and inside a " +
      "restricted token's docsets); otherwise 403 FORBIDDEN before anything is retrieved. With `stream: true` or " +
      '`Accept: text/event-stream` the answer is Server-Sent Events: `delta` events (`{ type, text }`, the pieces ' +
      'concatenate to the answer), then one `citations` event, then a final `done` event with the usage; a failure ' +
      'after the stream started ends it with an `error` event. Keep-alive comments are sent while waiting. See docs/ask.md.',
  })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiHeader({ name: 'Accept', required: false, description: '`text/event-stream` selects streaming.' })
  @ApiOkResponse({
    description: 'The answer (JSON), or the event stream.',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(AskResponseDto) } },
      'text/event-stream': {
        schema: {
          description: 'A series of SSE events; `event:` is the `type` of the JSON in `data:`.',
          oneOf: [
            { $ref: getSchemaPath(AskDeltaEventDto) },
            { $ref: getSchemaPath(AskCitationsEventDto) },
            { $ref: getSchemaPath(AskDoneEventDto) },
            { $ref: getSchemaPath(AskErrorEventDto) },
          ],
        },
      },
    },
  })
  @ApiExtraModels(AskResponseDto)
  @DocumentApiErrors(400, 401, 403, 503)
  async askQuestion(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: AskDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const cmd = toCommand(dto, wantsEventStream(dto, req.headers.accept));
    // The token decides the scope here, at the edge: its account and its docset restriction.
    const asker: AskScope = { accountId: auth.accountId, allowedDocSetNames: auth.scope.docSetNames };
    await answerOrStream(req, res, {
      stream: cmd.stream,
      keepAliveMs: this.cfg.server.sseKeepaliveMs,
      answer: (signal) => this.ask.answer(asker, cmd, signal),
      events: (signal) => this.ask.stream(asker, cmd, signal),
    });
  }

  @Post('summary')
  @HttpCode(200)
  @ApiOperation({ summary: 'A short descriptive title for a conversation (`pastMessages`, oldest first).' })
  @ApiOkResponse({ type: SummaryResponseDto })
  @DocumentApiErrors(400, 401, 503)
  title(@Body() dto: SummaryDto): Promise<SummaryResponseDto> {
    return this.summary.title(dto.pastMessages.map((m) => ({ role: m.role, content: m.content })));
  }
}
