import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import {
  KEY_NAME_MAX,
  PAST_MESSAGE_MAX,
  PAST_MESSAGES_USED,
  QUESTION_MAX,
  SUPPORT_MESSAGE_MAX,
} from '@docqa/chatbot';
import { AccountErrorDto } from '../common/api-dtos';

/**
 * OpenAPI shapes of the chatbot surface. Its one validation approach is the parsers of
 * libs/chatbot (`commands.ts`); these classes only document the wire format, carry no
 * class-validator rule, and state every limit with the parser's own constant
 * (docs/conventions.md "Validation: one approach per wire format").
 */

const ERROR_TEXT: Record<number, string> = {
  400: 'A required parameter is missing or invalid: `errors` names each field.',
  401: 'No valid credential for this endpoint.',
  403: 'The plan does not include the chatbot (Pro or Business needed), or the origin is not allowed for the key.',
  404: 'Not found.',
  422: 'Validation failed: `errors` names each field.',
  429: 'Hourly limit of the chatbot key reached (Pro 50, Business 100): back off until `reset_at` (also `Retry-After` seconds).',
  503: 'A dependency is not configured (no SMTP, or no support address on the account), or the document source is unavailable.',
};

/** Documents error responses in the Account/chatbot body `{ error, errors?, limit?, reset_at? }`. */
export function ChatbotErrors(
  ...statuses: Array<number | [number, string]>
): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(AccountErrorDto),
    ...statuses.map((s) => {
      const [status, description] = Array.isArray(s) ? s : [s, ERROR_TEXT[s]];
      return ApiResponse({ status, description, type: AccountErrorDto });
    }),
  );
}

export class ChatbotMessageDto {
  @ApiProperty({ enum: ['user', 'assistant'] })
  role: 'user' | 'assistant';
  @ApiProperty({ maxLength: PAST_MESSAGE_MAX })
  content: string;
}

export class AskQuestionDto {
  @ApiProperty({ maxLength: QUESTION_MAX, example: 'How long do refunds take?' })
  question: string;
  @ApiPropertyOptional({
    type: [ChatbotMessageDto],
    description: `Earlier turns, oldest first. Only the last ${PAST_MESSAGES_USED} are used; older ones are ignored.`,
  })
  past_messages?: ChatbotMessageDto[];
  @ApiPropertyOptional({
    enum: ['text', 'html'],
    default: 'text',
    description:
      '`text`: Markdown. `html`: rendered with marked and sanitised (no script, style, image, frame or event handler; ' +
      'links http(s)/mailto only, `[n]` markers link to the citation).',
  })
  format?: 'text' | 'html';
  @ApiPropertyOptional({ default: false, description: 'True: a `text/event-stream` of Server-Sent Events.' })
  stream?: boolean;
}

export class ChatbotCitationDto {
  @ApiProperty({ example: 1, description: 'Matches the inline marker `[n]` in the answer.' })
  index: number;
  @ApiProperty({ example: 'refund-policy.pdf' })
  fileName: string;
  @ApiProperty({ example: '3' })
  pageNumber: string;
  @ApiProperty({
    description: 'Signed link to the file, served by this API and valid for a day; PDFs end in `#page=N`.',
    example: 'https://docqa.example.com/api/v1/chatbot/files/eyJhIjoxLCJkIjoi….Qm9n#page=3',
  })
  source: string;
}

export class ChatbotAnswerDto {
  @ApiProperty({
    description: 'Markdown (`format: text`) or sanitised HTML (`format: html`), with `[n]` markers.',
  })
  answer: string;
  @ApiProperty({ type: [ChatbotCitationDto] })
  citations: ChatbotCitationDto[];
  @ApiProperty({
    description: "The account's support address; empty when none is configured.",
    example: 'help@example.com',
  })
  support_email: string;
}

export class ChatbotDeltaEventDto {
  @ApiProperty({ enum: ['delta'], description: 'SSE `event: delta`.' })
  type: 'delta';
  @ApiProperty({
    description:
      'Next piece of the Markdown answer; the pieces concatenate to it (also with `format: html`).',
  })
  text: string;
}

export class ChatbotCitationsEventDto {
  @ApiProperty({ enum: ['citations'], description: 'SSE `event: citations`, after the last delta.' })
  type: 'citations';
  @ApiProperty({ type: [ChatbotCitationDto] })
  citations: ChatbotCitationDto[];
}

export class ChatbotDoneEventDto extends ChatbotAnswerDto {
  @ApiProperty({
    enum: ['done'],
    description: 'SSE `event: done`: the answer in the requested format; the last event.',
  })
  type: 'done';
}

export class ChatbotErrorEventDto {
  @ApiProperty({
    enum: ['error'],
    description: 'SSE `event: error`: the last event when the answer failed mid-stream.',
  })
  type: 'error';
  @ApiProperty()
  error: string;
}

export class SupportEmailDto {
  @ApiProperty({
    maxLength: SUPPORT_MESSAGE_MAX,
    description: `At most ${SUPPORT_MESSAGE_MAX} characters (400 beyond).`,
  })
  message: string;
  @ApiPropertyOptional({
    description: "The visitor's address, used as Reply-To.",
    example: 'visitor@example.org',
  })
  sender_email?: string;
}

export class SupportEmailResultDto {
  @ApiProperty({ example: true })
  success: boolean;
  @ApiProperty({ example: 'Your message has been sent to support.' })
  message: string;
}

export class ChatbotSettingsDto {
  @ApiProperty({
    enum: ['free', 'pro', 'business'],
    description: 'Set by an operator (`npm run cli -- plan set`).',
  })
  plan: string;
  @ApiProperty({ description: 'Whether the plan includes the chatbot (Pro or Business).' })
  chatbot_enabled: boolean;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 50,
    description: 'Requests per key per hour on this plan.',
  })
  rate_limit_per_hour: number | null;
  @ApiProperty({ nullable: true, type: String, example: 'help@example.com' })
  support_email: string | null;
  @ApiProperty({
    nullable: true,
    type: [String],
    description: 'Docsets the widget answers from; null means every docset of the account.',
  })
  docset_names: string[] | null;
  @ApiProperty({ type: [String], description: "The account's docsets now." })
  available_docsets: string[];
}

export class UpdateChatbotSettingsDto {
  @ApiPropertyOptional({ nullable: true, type: String, description: 'null or "" clears it.' })
  support_email?: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: [String],
    description: "Docsets of the account the widget answers from; null: all of the account's docsets.",
  })
  docset_names?: string[] | null;
}

export class ChatbotKeyDto {
  @ApiProperty({ example: 1 })
  id: number;
  @ApiProperty({ example: 'Website' })
  name: string;
  @ApiProperty({
    description: 'Masked (`cb_` + 5 characters + •) in listings; the full key only in the creation response.',
    example: 'cb_Xy12a••••••••',
  })
  key: string;
  @ApiProperty({ nullable: true, type: String, example: 'https://www.example.com' })
  allowed_origin: string | null;
  @ApiProperty()
  created_at: string;
}

export class CreateChatbotKeyDto {
  @ApiPropertyOptional({ maxLength: KEY_NAME_MAX, default: 'Chatbot key' })
  name?: string;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description:
      'Lock the key to this origin (scheme + host [+ port]); requests must then carry it in Origin or Referer.',
    example: 'https://www.example.com',
  })
  allowed_origin?: string | null;
}

export class UpdateChatbotKeyDto {
  @ApiPropertyOptional({ maxLength: KEY_NAME_MAX })
  name?: string;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'null removes the origin lock.' })
  allowed_origin?: string | null;
}
