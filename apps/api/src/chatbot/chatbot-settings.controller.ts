import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiTokenAuth, AuthContext, CurrentAuth, RequireUnrestricted } from '@docqa/accounts';
import {
  ChatbotKeysService,
  ChatbotSettingsService,
  parseCreateKey,
  parseUpdateKey,
  parseUpdateSettings,
} from '@docqa/chatbot';
import { DomainError } from '@docqa/common';
import { EmptyDto } from '../common/api-dtos';
import {
  ChatbotErrors,
  ChatbotKeyDto,
  ChatbotSettingsDto,
  CreateChatbotKeyDto,
  UpdateChatbotKeyDto,
  UpdateChatbotSettingsDto,
} from './chatbot.dto';

function keyId(id: string): number {
  if (!/^\d{1,9}$/.test(id)) throw DomainError.notFound('Chatbot key not found');
  return Number(id);
}

/**
 * Extensions: the account's chatbot settings and `cb_` keys, managed with an unrestricted API
 * token. The plan is not settable here (operator CLI).
 */
@ApiTags('Chatbot: settings and keys (extensions)')
@Controller('api/v1/chatbot')
@ApiTokenAuth()
@RequireUnrestricted()
export class ChatbotSettingsController {
  constructor(
    private readonly settings: ChatbotSettingsService,
    private readonly keys: ChatbotKeysService,
  ) {}

  @Get('settings')
  @ApiOperation({ summary: 'Extension: chatbot settings of the account (plan, support e-mail, docsets).' })
  @ApiOkResponse({ type: ChatbotSettingsDto })
  @ChatbotErrors(
    [401, 'No valid API token (a `cb_` key is refused here).'],
    [403, 'The API token is restricted.'],
  )
  get(@CurrentAuth() auth: AuthContext) {
    return this.settings.get(auth.accountId);
  }

  @Patch('settings')
  @ApiOperation({
    summary:
      'Extension: set the support e-mail address and the docsets the widget answers from (null: all of them).',
  })
  @ApiBody({ type: UpdateChatbotSettingsDto })
  @ApiOkResponse({ type: ChatbotSettingsDto })
  @ChatbotErrors(401, [403, 'The API token is restricted.'], 422)
  update(@CurrentAuth() auth: AuthContext, @Body() body: unknown) {
    return this.settings.update(auth.accountId, parseUpdateSettings(body));
  }

  @Get('keys')
  @ApiOperation({ summary: 'Extension: live chatbot keys of the account (masked).' })
  @ApiOkResponse({ type: [ChatbotKeyDto] })
  @ChatbotErrors(401, [403, 'The API token is restricted.'])
  list(@CurrentAuth() auth: AuthContext) {
    return this.keys.list(auth.accountId);
  }

  @Post('keys')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Extension: create a `cb_` chatbot key, optionally locked to an origin. The full key is shown once; only its hash is stored.',
  })
  @ApiBody({ type: CreateChatbotKeyDto })
  @ApiOkResponse({ type: ChatbotKeyDto, description: '`key` is the full key here, and only here.' })
  @ChatbotErrors(401, [403, 'The API token is restricted.'], 422)
  create(@CurrentAuth() auth: AuthContext, @Body() body: unknown) {
    return this.keys.create(auth.accountId, parseCreateKey(body));
  }

  @Patch('keys/:id')
  @ApiOperation({ summary: 'Extension: rename a chatbot key or change (null: remove) its allowed origin.' })
  @ApiParam({ name: 'id', type: Number })
  @ApiBody({ type: UpdateChatbotKeyDto })
  @ApiOkResponse({ type: ChatbotKeyDto })
  @ChatbotErrors(401, [403, 'The API token is restricted.'], 404, 422)
  updateKey(@CurrentAuth() auth: AuthContext, @Param('id') id: string, @Body() body: unknown) {
    return this.keys.update(auth.accountId, keyId(id), parseUpdateKey(body));
  }

  @Delete('keys/:id')
  @ApiOperation({ summary: 'Extension: revoke a chatbot key; it gets 401 from then on.' })
  @ApiParam({ name: 'id', type: Number })
  @ApiOkResponse({ type: EmptyDto, description: '`{}`' })
  @ChatbotErrors(401, [403, 'The API token is restricted.'], 404)
  async revoke(@CurrentAuth() auth: AuthContext, @Param('id') id: string) {
    await this.keys.revoke(auth.accountId, keyId(id));
    return {};
  }
}
