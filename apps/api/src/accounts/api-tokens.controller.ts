import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { DomainError } from '@docqa/common';
import {
  ApiTokenAuth,
  ApiTokensService,
  AuthContext,
  CurrentAuth,
  parseCreateToken,
  RequireUnrestricted,
} from '@docqa/accounts';
import { EmptyDto } from '../common/api-dtos';
import { AccountErrors, CreateTokenDto, TokenDto } from './accounts.dto';

@ApiTags('Account API: extensions')
@Controller('api/v1/api_tokens')
@ApiTokenAuth()
export class ApiTokensController {
  constructor(private readonly tokens: ApiTokensService) {}

  @Get()
  @ApiOperation({ summary: 'Extension: list the live API tokens of the user (tokens masked).' })
  @ApiOkResponse({ type: [TokenDto] })
  @AccountErrors(401)
  list(@CurrentAuth() auth: AuthContext) {
    return this.tokens.list(auth.userId);
  }

  @Post()
  @HttpCode(200)
  @RequireUnrestricted()
  @ApiOperation({
    summary:
      'Extension: create an API token, optionally read-only and/or limited to docsets. The full token is shown once.',
  })
  @ApiBody({ type: CreateTokenDto })
  @ApiOkResponse({ type: TokenDto, description: '`token` is the full token here, and only here.' })
  @AccountErrors(401, 403, 422)
  create(@CurrentAuth() auth: AuthContext, @Body() body: unknown) {
    return this.tokens.create(auth, parseCreateToken(body));
  }

  @Delete(':id')
  @RequireUnrestricted()
  @ApiOperation({ summary: 'Extension: revoke an API token; it gets 401 from then on.' })
  @ApiParam({ name: 'id', type: Number })
  @ApiOkResponse({ type: EmptyDto, description: '`{}`' })
  @AccountErrors(401, 403, 404)
  async revoke(@CurrentAuth() auth: AuthContext, @Param('id') id: string) {
    if (!/^\d{1,9}$/.test(id)) throw DomainError.notFound('API token not found');
    await this.tokens.revoke(auth.userId, Number(id));
    return {};
  }
}
