import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { LoginService, parseLogin } from '@docqa/accounts';
import { AccountErrors, LoginDto, LoginResponseDto } from './accounts.dto';
import { clientIp } from './request-info';

@ApiTags('Account API')
@Controller('api/v1')
export class AuthController {
  constructor(private readonly login: LoginService) {}

  @Post('auth')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Log in (no credential): returns the default API token, the same on every login.',
    description:
      'Unknown e-mail and wrong password give the same 401. With two-factor enabled, no `otp_attempt` gives 422 ' +
      '`{ "error": "otp_attempt_required" }` and a wrong code 401. Failures are throttled per e-mail (10 per 15 ' +
      'minutes) and per client address (50 per 15 minutes): 429 with `limit`, `reset_at` and Retry-After.',
  })
  @ApiBody({ type: LoginDto })
  @ApiOkResponse({ type: LoginResponseDto })
  @AccountErrors(
    [400, 'email or password missing.'],
    [401, 'Invalid email or password, or a wrong two-factor code.'],
    [422, '`{ "error": "otp_attempt_required" }`: two-factor is enabled and no code was sent.'],
    429,
  )
  auth(@Body() body: unknown, @Req() req: Request) {
    return this.login.login(parseLogin(body), clientIp(req));
  }
}
