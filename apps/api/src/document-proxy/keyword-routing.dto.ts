import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';

export class KeywordRoutingQueryDto {
  @ApiProperty({ description: 'The query to classify.', example: 'vacation days new employees' })
  @IsString({ message: 'q must be a string' })
  @Matches(/\S/, { message: 'q must not be empty' })
  @MaxLength(2000, { message: 'q must be at most 2000 characters' })
  q!: string;
}

export class KeywordRoutingEvaluationDto {
  @ApiProperty({ description: 'The query as it would be searched (whitespace collapsed).' })
  query!: string;
  @ApiProperty({ description: 'True when the query is searched directly, without the rewriter.' })
  skipsRewriter!: boolean;
  @ApiProperty({ example: 5 })
  maxWords!: number;
  @ApiProperty({ description: 'Human-readable rule text.' })
  rule!: string;
}
