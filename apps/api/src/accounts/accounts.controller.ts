import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  AccountsService,
  ApiTokenAuth,
  AuthContext,
  CurrentAuth,
  parseCreateAccount,
  RequireUnrestricted,
} from '@docqa/accounts';
import { AccountDto, AccountErrors, CreateAccountDto } from './accounts.dto';

@ApiTags('Account API')
@Controller('api/v1')
@ApiTokenAuth()
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Get('accounts')
  @ApiOperation({ summary: 'Accounts the user belongs to, each with its memberships.' })
  @ApiOkResponse({ type: [AccountDto] })
  @AccountErrors(401)
  list(@CurrentAuth() auth: AuthContext) {
    return this.accounts.listForUser(auth.userId);
  }

  @Post('accounts')
  @HttpCode(200)
  @RequireUnrestricted()
  @ApiTags('Account API: extensions')
  @ApiOperation({ summary: 'Extension: create a team account; the caller becomes its owner and member.' })
  @ApiBody({ type: CreateAccountDto })
  @ApiOkResponse({ type: AccountDto })
  @AccountErrors(401, 403, 422)
  create(@CurrentAuth() auth: AuthContext, @Body() body: unknown) {
    return this.accounts.createTeam(auth.userId, parseCreateAccount(body));
  }
}
