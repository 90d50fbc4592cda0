import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  ChatbotAnswerService,
  ChatbotCaller,
  ChatbotFilesService,
  ChatbotKeyAuth,
  CurrentChatbot,
  parseAskQuestion,
  parseSupportEmail,
  SupportMailService,
} from '@docqa/chatbot';
import { APP_CONFIG, AppConfig } from '@docqa/common';
import { answerOrStream } from '../common/sse';
import {
  AskQuestionDto,
  ChatbotAnswerDto,
  ChatbotCitationsEventDto,
  ChatbotDeltaEventDto,
  ChatbotDoneEventDto,
  ChatbotErrorEventDto,
  ChatbotErrors,
  SupportEmailDto,
  SupportEmailResultDto,
} from './chatbot.dto';

/** `attachment; filename="..."; filename*=UTF-8''...` with a safe ASCII fallback. */
export function contentDisposition(kind: 'inline' | 'attachment', fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

const KEY_ERRORS: Array<number | [number, string]> = [
  400,
  [401, 'Missing, unknown or revoked chatbot key, or an API token (chatbot endpoints take `cb_` keys only).'],
  403,
  429,
];

/**
 * The chatbot endpoints (`cb_` key, Pro or Business plan, origin lock, hourly limit per key, CORS)
 * and the signed file links of chatbot citations. Thin: one call into libs/chatbot each.
 */
@ApiTags('Chatbot')
@Controller('api/v1')
@ApiExtraModels(ChatbotDeltaEventDto, ChatbotCitationsEventDto, ChatbotDoneEventDto, ChatbotErrorEventDto)
export class ChatbotController {
  constructor(
    private readonly answers: ChatbotAnswerService,
    private readonly support: SupportMailService,
    private readonly files: ChatbotFilesService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  @Post('chatbot/ask_question')
  @HttpCode(200)
  @ChatbotKeyAuth()
  @ApiOperation({
    summary: "Answer a question from the key's account documents (chatbot key).",
    description:
      'Needs a `cb_` chatbot key (API tokens get 401), a Pro or Business plan (403), and, when the key has an allowed ' +
      'origin, a matching Origin (or Referer) header (403). 50 (Pro) or 100 (Business) requests per key per hour, ' +
      'shared with /support_emails; only valid requests that reach an answer count (not 400s); past that 429 ' +
      '`{ error, limit, reset_at }` with Retry-After. The docsets are ' +
      "the account's chatbot docsets (settings; default all). Only the last 10 `past_messages` are used. " +
      'With `stream: true` the answer is Server-Sent Events: `delta` (Markdown pieces), one `citations`, then ' +
      '`done` with the answer in the requested format, citations and support_email; `error` ends a failed stream. ' +
      'CORS: cross-origin browser calls are allowed (preflight answered, Origin echoed).',
  })
  @ApiBody({ type: AskQuestionDto })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({
    description: 'The answer (JSON), or the event stream when `stream` is true.',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ChatbotAnswerDto) } },
      'text/event-stream': {
        schema: {
          description: 'Server-Sent Events; `event:` is the `type` of the JSON in `data:`.',
          oneOf: [
            { $ref: getSchemaPath(ChatbotDeltaEventDto) },
            { $ref: getSchemaPath(ChatbotCitationsEventDto) },
            { $ref: getSchemaPath(ChatbotDoneEventDto) },
            { $ref: getSchemaPath(ChatbotErrorEventDto) },
          ],
        },
      },
    },
  })
  @ApiExtraModels(ChatbotAnswerDto)
  @ChatbotErrors(...KEY_ERRORS, [503, 'A model or search dependency is unavailable.'])
  async askQuestion(
    @CurrentChatbot() caller: ChatbotCaller,
    @Body() body: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const cmd = parseAskQuestion(body);
    await answerOrStream(req, res, {
      stream: cmd.stream,
      keepAliveMs: this.cfg.server.sseKeepaliveMs,
      answer: (signal) => this.answers.answer(caller, cmd, signal),
      events: (signal) => this.answers.stream(caller, cmd, signal),
    });
  }

  @Post('support_emails')
  @HttpCode(200)
  @ChatbotKeyAuth()
  @ApiOperation({
    summary: "Send a message to the account's support inbox (chatbot key).",
    description:
      'Same key, plan, origin and rate-limit rules as ask_question (the hourly counter is shared; a request counts ' +
      'only when its message is queued, not when refused with 400 or 503). The message is ' +
      'stored in the mail outbox first and delivered by SMTP, retried with backoff until delivered; `sender_email` ' +
      'becomes Reply-To. 503 when SMTP is not configured or the account has no support address.',
  })
  @ApiBody({ type: SupportEmailDto })
  @ApiOkResponse({ type: SupportEmailResultDto })
  @ChatbotErrors(...KEY_ERRORS, 503)
  sendSupportEmail(@CurrentChatbot() caller: ChatbotCaller, @Body() body: unknown) {
    return this.support.submit(caller, parseSupportEmail(body));
  }

  @Get('chatbot/files/:token')
  @ApiOperation({
    summary:
      'The original file of a chatbot citation (the signed, expiring `source` link; no other credential).',
  })
  @ApiOkResponse({ description: 'The file: PDFs and plain text inline, other types as a download.' })
  @ChatbotErrors([404, 'The link is invalid or expired, or the document is gone.'], 503)
  async file(@Param('token') token: string, @Res() res: Response): Promise<void> {
    const f = await this.files.open(token);
    res.setHeader('Content-Type', f.contentType);
    res.setHeader('Content-Disposition', contentDisposition(f.disposition, f.fileName));
    res.setHeader('Cache-Control', 'private, max-age=300');
    // Anything but a PDF (which Chrome's viewer refuses to show in a sandbox) gets no script at all.
    if (f.contentType !== 'application/pdf')
      res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'");
    res.status(200).end(f.data);
  }
}
