import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { NAME_MAX, PASSWORD_MAX, PASSWORD_MIN, TOKEN_DOCSETS_MAX, TOKEN_NAME_MAX } from '@docqa/accounts';
import { AccountErrorDto } from '../common/api-dtos';

/**
 * OpenAPI shapes of the Account API. Its one validation approach is the parsers of libs/accounts
 * (`commands.ts`: 400 for a missing wrapper, 422 with `errors` by field); these classes only
 * document the wire format, carry no class-validator rule, and state every limit with the
 * parser's own constant (docs/conventions.md "Validation: one approach per wire format").
 */

const ERROR_TEXT: Record<number, string> = {
  400: 'A required parameter is missing (e.g. the `user` object).',
  401: 'No valid API token (missing, unknown, revoked, or a `cb_` chatbot key).',
  403: 'The API token is restricted (read-only or docset-limited) and the endpoint needs more.',
  404: 'Not found.',
  409: 'Conflicts with the current state.',
  422: 'Validation failed: `errors` names each field.',
  429: 'Too many failed attempts: back off until `reset_at` (also `Retry-After` seconds).',
};

/** Documents Account API error responses (body `{ error, errors?, limit?, reset_at? }`). */
export function AccountErrors(
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

export class RegisterUserFieldsDto {
  @ApiProperty({ example: 'ada@example.com', description: 'Valid address, unique (case-insensitive).' })
  email: string;
  @ApiProperty({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX, example: 'correct horse battery' })
  password: string;
  @ApiProperty({ description: 'Must equal `password`.', example: 'correct horse battery' })
  password_confirmation: string;
  @ApiPropertyOptional({ maxLength: NAME_MAX, example: 'Ada Lovelace' })
  name?: string;
  @ApiPropertyOptional({
    description: 'Required (true) when REQUIRE_TERMS_OF_SERVICE is set.',
    example: true,
  })
  terms_of_service?: boolean;
}

export class RegisterUserDto {
  @ApiProperty({ type: RegisterUserFieldsDto })
  user: RegisterUserFieldsDto;
}

export class IssuedTokenDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'Default' }) name: string;
  @ApiProperty({
    description: 'Full API token (`dq_` + 43 characters).',
    example: 'dq_3q2-7wEXAMPLEexampleEXAMPLEexampleEXAMPLE12',
  })
  token: string;
}

export class RegisteredUserFieldsDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ example: 'Ada Lovelace' }) name: string;
  @ApiProperty({ type: [IssuedTokenDto], description: 'The default API token.' })
  api_tokens: IssuedTokenDto[];
}

export class RegisteredUserDto {
  @ApiProperty({ type: RegisteredUserFieldsDto }) user: RegisteredUserFieldsDto;
}

export class LoginDto {
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ example: 'correct horse battery' }) password: string;
  @ApiPropertyOptional({
    description: 'Current TOTP code; required when two-factor is enabled.',
    example: '123456',
  })
  otp_attempt?: string;
}

export class LoginResponseDto {
  @ApiProperty({ description: 'The default API token: the same on every login.' }) token: string;
}

export class ProfileDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'Ada Lovelace' }) name: string;
  @ApiProperty({
    description: 'Generated SVG avatar served by this service (signed URL, no credential needed).',
    example: 'https://localhost:8443/api/v1/users/1/avatar.svg?s=...',
  })
  avatar_url: string;
  @ApiProperty({ description: 'Signed global id: base64url(`gid://docqa/User/{id}`) + `--` + HMAC-SHA256.' })
  sgid: string;
  @ApiProperty({ description: 'HTML fragment of the profile; every user-supplied value is escaped.' })
  content: string;
}

export class ChangePasswordFieldsDto {
  @ApiProperty() current_password: string;
  @ApiProperty({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }) password: string;
  @ApiProperty({ description: 'Must equal `password`.' }) password_confirmation: string;
}

export class ChangePasswordDto {
  @ApiProperty({ type: ChangePasswordFieldsDto }) user: ChangePasswordFieldsDto;
}

export class SuccessDto {
  @ApiProperty({ example: true }) success: boolean;
}

export class AccountUserDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 1 }) user_id: number;
}

export class AccountDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'Ada Lovelace' }) name: string;
  @ApiProperty({ example: true }) personal: boolean;
  @ApiProperty({ example: 1 }) owner_id: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ type: [AccountUserDto] }) account_users: AccountUserDto[];
}

export class CreateAccountDto {
  @ApiProperty({ maxLength: NAME_MAX, example: 'Research team' }) name: string;
}

export class TokenDto {
  @ApiProperty({ example: 2 }) id: number;
  @ApiProperty({ example: 'CI read-only' }) name: string;
  @ApiProperty({
    description: 'Masked in listings (`dq_` + 5 characters + dots); full only in the create response.',
  })
  token: string;
  @ApiProperty({ description: 'The token login returns.' }) default: boolean;
  @ApiProperty({ description: 'Read-and-ask only.' }) read_only: boolean;
  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'Docsets the token is limited to; null = all.',
  })
  docset_names: string[] | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_used_at: string | null;
}

export class CreateTokenDto {
  @ApiProperty({ maxLength: TOKEN_NAME_MAX, example: 'CI read-only' }) name: string;
  @ApiPropertyOptional({ description: 'Read-and-ask only (no indexing, deletion or account changes).' })
  read_only?: boolean;
  @ApiPropertyOptional({
    type: [String],
    maxItems: TOKEN_DOCSETS_MAX,
    description: 'Limit the token to these docsets.',
    example: ['handbook'],
  })
  docset_names?: string[];
}

export class TwoFactorEnrolmentDto {
  @ApiProperty({
    example:
      'otpauth://totp/DocQA:ada%40example.com?issuer=DocQA&secret=...&algorithm=SHA1&digits=6&period=30',
  })
  otpauth_uri: string;
  @ApiProperty({ description: 'Base32 TOTP secret (for manual entry).' }) secret: string;
}

export class OtpAttemptDto {
  @ApiProperty({ example: '123456' }) otp_attempt: string;
}

export class DisableTwoFactorDto {
  @ApiPropertyOptional({ example: '123456', description: 'A current code, or:' }) otp_attempt?: string;
  @ApiPropertyOptional({ description: 'The account password.' }) password?: string;
}

export class TwoFactorStateDto {
  @ApiProperty({ example: true }) success: boolean;
  @ApiProperty() two_factor_enabled: boolean;
}
