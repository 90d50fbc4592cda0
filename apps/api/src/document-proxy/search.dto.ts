import { DocSetNamesField, MinimumSimilarityScoreField } from './retrieval-fields';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
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
import { SEARCH_LIMITS } from '@docqa/rag';
import { SourceMetadataDto } from './ask.dto';

const L = SEARCH_LIMITS;

export class SearchConfigDto {
  @MinimumSimilarityScoreField()
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

  @DocSetNamesField()
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
