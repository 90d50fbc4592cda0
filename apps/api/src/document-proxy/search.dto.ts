import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { DOCSET_NAME_RULE, IsDocsetName } from '@docqa/catalog';
import { ASK_LIMITS, SEARCH_LIMITS } from '@docqa/rag';
import { SourceMetadataDto } from './ask.dto';

const L = SEARCH_LIMITS;
const S = ASK_LIMITS.minimumSimilarityScore;

export class SearchConfigDto {
  @ApiPropertyOptional({
    description:
      'Cut-off on the cosine similarity of the vector leg of retrieval: chunks below it are not retrieved by that leg (as /ask).',
    minimum: S.min,
    maximum: S.max,
    default: S.default,
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'minimumSimilarityScore must be a number' })
  @Min(S.min, { message: `minimumSimilarityScore must be between ${S.min} and ${S.max}` })
  @Max(S.max, { message: `minimumSimilarityScore must be between ${S.min} and ${S.max}` })
  minimumSimilarityScore?: number;
}

export class SearchDto {
  @ApiProperty({
    description: 'What to search for: a question or keywords, as /ask takes `question` (without history).',
    minLength: 1,
    maxLength: L.queryMaxChars,
    example: 'How many vacation days do new employees get?',
  })
  @IsString({ message: 'query must be a string' })
  @Matches(/\S/, { message: 'query must not be empty' })
  @MaxLength(L.queryMaxChars, { message: `query must be at most ${L.queryMaxChars} characters` })
  query!: string;

  @ApiProperty({
    description: `Docsets to search; every one must be the caller's (403 FORBIDDEN otherwise). ${DOCSET_NAME_RULE}`,
    type: [String],
    minItems: 1,
    maxItems: ASK_LIMITS.docSetNamesMax,
    example: ['manuals'],
  })
  @IsArray({ message: 'docSetNames must be an array of docset names' })
  @ArrayNotEmpty({ message: 'docSetNames must not be empty' })
  @ArrayMaxSize(ASK_LIMITS.docSetNamesMax, {
    message: `docSetNames may name at most ${ASK_LIMITS.docSetNamesMax} docsets`,
  })
  @IsDocsetName({ each: true })
  docSetNames!: string[];

  @ApiPropertyOptional({
    description: 'Results returned, best first.',
    minimum: L.limit.min,
    maximum: L.limit.max,
    default: L.limit.default,
  })
  @IsOptional()
  @IsInt({ message: 'limit must be an integer' })
  @Min(L.limit.min, { message: `limit must be at least ${L.limit.min}` })
  @Max(L.limit.max, { message: `limit must be at most ${L.limit.max}` })
  limit?: number;

  @ApiPropertyOptional({ type: SearchConfigDto })
  @IsOptional()
  @IsObject({ message: 'config must be an object' })
  @ValidateNested()
  @Type(() => SearchConfigDto)
  config?: SearchConfigDto;
}

export class SearchResultDto {
  @ApiProperty({ description: 'The passage (the indexed chunk) as retrieved.' })
  text!: string;
  @ApiProperty({ example: 'geometry.pdf' })
  fileName!: string;
  @ApiProperty({ description: '1-based physical page number.', example: '1' })
  pageNumber!: string;
  @ApiProperty({ example: 'manuals' })
  docSetName!: string;
  @ApiProperty({ description: 'The document id (GET /documents/{id}).' })
  documentId!: string;
  @ApiProperty({ enum: ['S3', 'SHAREPOINT', 'GOOGLEDRIVE'] })
  sourceType!: string;
  @ApiProperty({ type: SourceMetadataDto, description: "As in /ask's citations." })
  sourceMetadata!: SourceMetadataDto;
  @ApiProperty({
    description:
      "Ranking score: the reranker's relevance (0-1) when a reranker is configured, else the fused hybrid score. " +
      'Results are in ranking order; for list and compare questions, where passages of several documents are ' +
      'interleaved, scores need not decrease.',
  })
  score!: number;
}

export class SearchResponseDto {
  @ApiProperty({ type: [SearchResultDto], description: 'Best first, at most `limit`.' })
  results!: SearchResultDto[];
}
