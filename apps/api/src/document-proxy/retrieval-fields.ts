import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsNumber, IsOptional, Max, Min } from 'class-validator';
import { DOCSET_NAME_RULE, IsDocsetName } from '@docqa/catalog';
import { ASK_LIMITS } from '@docqa/rag';

const D = ASK_LIMITS.docSetNamesMax;
const S = ASK_LIMITS.minimumSimilarityScore;

/** `docSetNames` of /ask and /search: one to ASK_LIMITS.docSetNamesMax valid docset names. */
export function DocSetNamesField(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      description: `Docsets to search; every one must be the caller's (403 FORBIDDEN otherwise). ${DOCSET_NAME_RULE}`,
      type: [String],
      minItems: 1,
      maxItems: D,
      example: ['manuals'],
    }),
    IsArray({ message: 'docSetNames must be an array of docset names' }),
    ArrayNotEmpty({ message: 'docSetNames must not be empty' }),
    ArrayMaxSize(D, { message: `docSetNames may name at most ${D} docsets` }),
    IsDocsetName({ each: true }),
  );
}

/** `config.minimumSimilarityScore` of /ask and /search: the vector leg's cosine cut-off, 0-1. */
export function MinimumSimilarityScoreField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description:
        'Cut-off on the cosine similarity of the vector leg of retrieval: chunks below it are not retrieved by that leg.',
      minimum: S.min,
      maximum: S.max,
      default: S.default,
    }),
    IsOptional(),
    IsNumber(
      { allowNaN: false, allowInfinity: false },
      { message: 'minimumSimilarityScore must be a number' },
    ),
    Min(S.min, { message: `minimumSimilarityScore must be between ${S.min} and ${S.max}` }),
    Max(S.max, { message: `minimumSimilarityScore must be between ${S.min} and ${S.max}` }),
  );
}
