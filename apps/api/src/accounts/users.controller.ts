import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
} from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig, DomainError } from '@docqa/common';
import {
  ApiTokenAuth,
  AuthContext,
  CurrentAuth,
  parseChangePassword,
  parseRegister,
  RequireUnrestricted,
  UserDeletionService,
  UsersService,
} from '@docqa/accounts';
import { EmptyDto } from '../common/api-dtos';
import {
  AccountErrors,
  ChangePasswordDto,
  ProfileDto,
  RegisteredUserDto,
  RegisterUserDto,
  SuccessDto,
} from './accounts.dto';

@ApiTags('Account API')
@Controller('api/v1')
export class UsersController {
  constructor(
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly users: UsersService,
    private readonly deletion: UserDeletionService,
  ) {}

  @Post('users')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Register: creates the user, a personal account and the default API token (no credential).',
  })
  @ApiBody({ type: RegisterUserDto })
  @ApiOkResponse({ type: RegisteredUserDto })
  @AccountErrors(400, 422)
  register(@Body() body: unknown) {
    return this.users.register(parseRegister(body, this.cfg.accounts.requireTermsOfService));
  }

  @Get('me')
  @ApiTokenAuth()
  @ApiOperation({ summary: 'Profile of the token owner.' })
  @ApiOkResponse({ type: ProfileDto })
  @AccountErrors(401)
  me(@CurrentAuth() auth: AuthContext) {
    return this.users.profile(auth.userId);
  }

  @Patch('password')
  @ApiTokenAuth()
  @RequireUnrestricted()
  @ApiOperation({ summary: 'Change the password (current password required). Needs an unrestricted token.' })
  @ApiBody({ type: ChangePasswordDto })
  @ApiOkResponse({ type: SuccessDto })
  @AccountErrors(400, 401, 403, 422)
  changePassword(@CurrentAuth() auth: AuthContext, @Body() body: unknown) {
    return this.users.changePassword(auth.userId, parseChangePassword(body));
  }

  @Delete('me')
  @ApiTokenAuth()
  @RequireUnrestricted()
  @ApiOperation({
    summary:
      'Delete the user and their data immediately (personal account and accounts nobody else belongs to, ' +
      'with their documents, search chunks and indexing runs; memberships, tokens, chatbot keys). Cannot be undone.',
  })
  @ApiOkResponse({ type: EmptyDto, description: '`{}`' })
  @AccountErrors(401, 403, [
    503,
    'A cleanup step (search index, indexing runs) failed; nothing was deleted. Retry.',
  ])
  deleteMe(@CurrentAuth() auth: AuthContext) {
    return this.deletion.deleteUser(auth.userId);
  }

  @Get('users/:id/avatar.svg')
  @Header('Content-Type', 'image/svg+xml; charset=utf-8')
  @Header('Cache-Control', 'private, max-age=3600')
  @Header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
  @ApiOperation({
    summary: 'Generated SVG avatar with initials (the signed `avatar_url` of GET /me; no credential).',
  })
  @ApiOkResponse({ description: 'SVG image.', content: { 'image/svg+xml': { schema: { type: 'string' } } } })
  @AccountErrors(404)
  avatar(@Param('id') id: string, @Query('s') signature?: string) {
    if (!/^\d{1,15}$/.test(id)) throw DomainError.notFound('Avatar not found');
    return this.users.avatar(Number(id), typeof signature === 'string' ? signature : undefined);
  }
}
