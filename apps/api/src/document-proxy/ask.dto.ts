import { DocSetNamesField, MinimumSimilarityScoreField } from './retrieval-fields';
import { SOURCE_TYPES } from '@docqa/db';
import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiProperty,
  ApiPropertyOptional,
  ApiServiceUnavailableResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { allowedAskModels, ASK_LIMITS } from '@docqa/rag';

const L = ASK_LIMITS;

export class MessageDto {
  @ApiProperty({ enum: ['user', 'assistant'] })
  @IsIn(['user', 'assistant'], { message: 'role must be "user" or "assistant"' })
  role!: 'user' | 'assistant';

  @ApiProperty({ maxLength: L.messageMaxChars })
  @IsString({ message: 'content must be a string' })
  @MaxLength(L.messageMaxChars, { message: `content must be at most ${L.messageMaxChars} characters` })
  content!: string;
}

export class AskConfigDto {
  @ApiPropertyOptional({
    description: 'Chunks retrieved and handed to the answer model.',
    minimum: L.retrievalLimit.min,
    maximum: L.retrievalLimit.max,
    default: L.retrievalLimit.default,
  })
  @IsOptional()
  @IsInt({ message: 'retrievalLimit must be an integer' })
  @Min(L.retrievalLimit.min, { message: `retrievalLimit must be at least ${L.retrievalLimit.min}` })
  @Max(L.retrievalLimit.max, { message: `retrievalLimit must be at most ${L.retrievalLimit.max}` })
  retrievalLimit?: number;

  @MinimumSimilarityScoreField()
  minimumSimilarityScore?: number;

  @ApiPropertyOptional({
    description:
      'Answer model. `local` is the built-in extractive answerer (always available); `local-llm` the local ' +
      'generative model (503 CAPABILITY_DISABLED while it is not installed); `openai` the OpenAI-compatible server ' +
      '(OPENAI_BASE_URL / OPENAI_API_KEY, model OPENAI_MODEL); the Cohere names need COHERE_API_KEY (503 ' +
      'CAPABILITY_DISABLED otherwise). Default: the configured provider (ANSWER_PROVIDER).',
    enum: allowedAskModels(),
  })
  @IsOptional()
  @IsIn(allowedAskModels(), { message: `model must be one of ${allowedAskModels().join(', ')}` })
  model?: string;
}

export class AskDto {
  @ApiProperty({
    description: 'The current question.',
    maxLength: L.questionMaxChars,
    example: 'How many vacation days do new employees get?',
  })
  @IsString({ message: 'question must be a string' })
  @Matches(/\S/, { message: 'question must not be empty' })
  @MaxLength(L.questionMaxChars, { message: `question must be at most ${L.questionMaxChars} characters` })
  question!: string;

  @DocSetNamesField()
  docSetNames!: string[];

  @ApiPropertyOptional({
    description: 'Earlier turns, oldest first.',
    type: [MessageDto],
    maxItems: L.pastMessagesMax,
  })
  @IsOptional()
  @IsArray({ message: 'pastMessages must be an array of messages' })
  @ArrayMaxSize(L.pastMessagesMax, { message: `pastMessages may hold at most ${L.pastMessagesMax} messages` })
  @ValidateNested({ each: true })
  @Type(() => MessageDto)
  pastMessages?: MessageDto[];

  @ApiPropertyOptional({ type: AskConfigDto })
  @IsOptional()
  @IsObject({ message: 'config must be an object' })
  @ValidateNested()
  @Type(() => AskConfigDto)
  config?: AskConfigDto;

  @ApiPropertyOptional({
    description: 'Extra system context prepended to the prompt.',
    maxLength: L.promptContextMaxChars,
  })
  @IsOptional()
  @IsString({ message: 'promptContext must be a string' })
  @MaxLength(L.promptContextMaxChars, {
    message: `promptContext must be at most ${L.promptContextMaxChars} characters`,
  })
  promptContext?: string;

  @ApiPropertyOptional({
    description: 'True: the answer is streamed as Server-Sent Events (so does `Accept: text/event-stream`).',
  })
  @IsOptional()
  @IsBoolean({ message: 'stream must be a boolean' })
  stream?: boolean;
}

export class SourceMetadataDto {
  @ApiProperty({
    description: 'Identifier of the file in its source (S3 key, Graph item id, Drive file id).',
  })
  sourceId!: string;
  @ApiProperty({ description: 'Extension: the document id (GET /documents/{id}).' })
  documentId!: string;
  @ApiProperty({ description: 'Extension: the docset of the document.' })
  docSetName!: string;
}

export class CitationDto {
  @ApiProperty({ description: 'Matches the inline marker `[index]` in the answer.', example: 1 })
  index!: number;
  @ApiProperty({ example: 'geometry.pdf' })
  fileName!: string;
  @ApiProperty({ description: '1-based physical page number.', example: '1' })
  pageNumber!: string;
  @ApiProperty({ enum: SOURCE_TYPES })
  sourceType!: string;
  @ApiProperty({ type: SourceMetadataDto })
  sourceMetadata!: SourceMetadataDto;
}

export class ModelUsageDto {
  @ApiProperty({ example: 'local' })
  model!: string;
  @ApiProperty()
  inputTokens!: number;
  @ApiProperty()
  outputTokens!: number;
  @ApiProperty()
  calls!: number;
}

export class UsageDto {
  @ApiProperty({ description: 'Sum over perModel.' })
  inputTokens!: number;
  @ApiProperty({ description: 'Sum over perModel.' })
  outputTokens!: number;
  @ApiProperty({ description: 'Model calls made for the answer (rewriter, embedder, reranker, generator).' })
  calls!: number;
  @ApiProperty({ type: [ModelUsageDto], description: 'One entry per model, in order of its first call.' })
  perModel!: ModelUsageDto[];
}

export class AskResponseDto {
  @ApiProperty({ description: 'The answer, with inline markers `[n]` that index `citations`.' })
  answer!: string;
  @ApiProperty({
    type: [CitationDto],
    description: 'Deduplicated by document and page, numbered in order of first use.',
  })
  citations!: CitationDto[];
  @ApiProperty({ type: UsageDto })
  usage!: UsageDto;
}

export class AskDeltaEventDto {
  @ApiProperty({ enum: ['delta'], description: 'SSE `event: delta`.' })
  type!: 'delta';
  @ApiProperty({ description: 'Next piece of the answer; the pieces concatenate to the answer.' })
  text!: string;
}

export class AskCitationsEventDto {
  @ApiProperty({ enum: ['citations'], description: 'SSE `event: citations`, after the last delta.' })
  type!: 'citations';
  @ApiProperty({ type: [CitationDto] })
  citations!: CitationDto[];
}

export class AskDoneEventDto {
  @ApiProperty({ enum: ['done'], description: 'SSE `event: done`, the final event of a successful answer.' })
  type!: 'done';
  @ApiProperty({ description: 'The whole answer (the deltas concatenated).' })
  answer!: string;
  @ApiProperty({ type: UsageDto })
  usage!: UsageDto;
}

export class AskErrorEventDto {
  @ApiProperty({
    enum: ['error'],
    description: 'SSE `event: error`: the final event when the answer failed mid-stream.',
  })
  type!: 'error';
  @ApiProperty({ example: 'DEPENDENCY_UNAVAILABLE' })
  errorCode!: string;
  @ApiProperty()
  message!: string;
}

export class SummaryDto {
  @ApiProperty({
    type: [MessageDto],
    minItems: 1,
    maxItems: L.pastMessagesMax,
    description: 'The conversation, oldest first.',
  })
  @IsArray({ message: 'pastMessages must be an array of messages' })
  @ArrayNotEmpty({ message: 'pastMessages must not be empty' })
  @ArrayMaxSize(L.pastMessagesMax, { message: `pastMessages may hold at most ${L.pastMessagesMax} messages` })
  @ValidateNested({ each: true })
  @Type(() => MessageDto)
  pastMessages!: MessageDto[];
}

export class SummaryResponseDto {
  @ApiProperty({ description: 'A short descriptive title for the conversation (at most 60 characters).' })
  title!: string;
}

const BODY = (code: string) => `\`{ message, errorCode: "${code}" }\``;

/** OpenAPI error responses of the Document API question and document endpoints. */
export function DocumentApiErrors(...statuses: Array<400 | 401 | 403 | 404 | 503>) {
  const map = {
    400: ApiBadRequestResponse({ description: '`{ message, errorCode: "VALIDATION_ERROR", field }`' }),
    401: ApiUnauthorizedResponse({ description: BODY('UNAUTHENTICATED') }),
    403: ApiForbiddenResponse({ description: `${BODY('FORBIDDEN')}: a docset that is not the caller's` }),
    404: ApiNotFoundResponse({ description: BODY('NOT_FOUND') }),
    503: ApiServiceUnavailableResponse({
      description: `${BODY('CAPABILITY_DISABLED')} (model of an unconfigured provider) or ${BODY('DEPENDENCY_UNAVAILABLE')}`,
    }),
  };
  return applyDecorators(...statuses.map((s) => map[s]));
}
