import { Body, Controller, Delete, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApiTokenAuth,
  AuthContext,
  CurrentAuth,
  parseDisableTwoFactor,
  parseOtpAttempt,
  RequireUnrestricted,
  TwoFactorService,
} from '@docqa/accounts';
import {
  AccountErrors,
  DisableTwoFactorDto,
  OtpAttemptDto,
  TwoFactorEnrolmentDto,
  TwoFactorStateDto,
} from './accounts.dto';

@ApiTags('Account API: extensions')
@Controller('api/v1/two_factor')
@ApiTokenAuth()
@RequireUnrestricted()
export class TwoFactorController {
  constructor(private readonly twoFactor: TwoFactorService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Extension: start TOTP enrolment; returns the otpauth URI (for a QR code) and the secret.',
  })
  @ApiOkResponse({ type: TwoFactorEnrolmentDto })
  @AccountErrors(401, 403, [409, 'Two-factor authentication is already enabled.'])
  enrol(@CurrentAuth() auth: AuthContext) {
    return this.twoFactor.enrol(auth.userId);
  }

  @Post('confirm')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Extension: confirm enrolment with a current code; login then needs `otp_attempt`.',
  })
  @ApiBody({ type: OtpAttemptDto })
  @ApiOkResponse({ type: TwoFactorStateDto })
  @AccountErrors(401, 403, 409, 422)
  confirm(@CurrentAuth() auth: AuthContext, @Body() body: unknown) {
    return this.twoFactor.confirm(auth.userId, parseOtpAttempt(body));
  }

  @Delete()
  @ApiOperation({ summary: 'Extension: turn two-factor off with a current code or the password.' })
  @ApiBody({ type: DisableTwoFactorDto })
  @ApiOkResponse({ type: TwoFactorStateDto })
  @AccountErrors(401, 403, [409, 'Two-factor authentication is not enabled.'], 422)
  disable(@CurrentAuth() auth: AuthContext, @Body() body: unknown) {
    return this.twoFactor.disable(auth.userId, parseDisableTwoFactor(body));
  }
}
