import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** OpenAPI shapes shared by the Account and chatbot surfaces (one error body, `{}` answers). */

/** Error body of the Account and chatbot APIs: `{ error, errors?, limit?, reset_at? }`. */
export class AccountErrorDto {
  @ApiProperty({ description: 'Human-readable message.', example: 'Validation failed: Email is invalid' })
  error: string;
  @ApiPropertyOptional({
    description: 'Validation failures, keyed by field.',
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: { email: ['is invalid'] },
  })
  errors?: Record<string, string[]>;
  @ApiPropertyOptional({ description: 'On 429: the limit of the window.', example: 10 })
  limit?: number;
  @ApiPropertyOptional({
    description: 'On 429: ISO 8601 time the window resets.',
    example: '2025-01-01T12:15:00.000Z',
  })
  reset_at?: string;
}

/** The `{}` answer of deletions. */
export class EmptyDto {}
