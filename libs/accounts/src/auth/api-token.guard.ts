import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { Request } from 'express';
import { DomainError, ErrorCode } from '@docqa/common';
import { ApiTokensService } from '../tokens/api-tokens.service';
import { bearerFrom, isChatbotKey } from '../tokens/token-format';
import { assertCanWrite, assertUnrestricted, AuthContext } from './auth-context';

/** What an endpoint needs from the token's scope. */
export type TokenAccess = 'read' | 'write' | 'unrestricted';
export const TOKEN_ACCESS_METADATA = 'docqa:token-access';

type AuthedRequest = Request & { auth?: AuthContext };

/** 401 with the bearer challenge of `realm` (the chatbot surface has its own). */
export function bearerUnauthenticated(message: string, realm = 'docqa'): DomainError {
  return new DomainError(ErrorCode.UNAUTHENTICATED, message, {}, undefined, {
    'WWW-Authenticate': `Bearer realm="${realm}"`,
  });
}

/**
 * The bearer guard of the Account API and the Document API. 401 (in the surface's error body, by
 * path) for a missing, malformed, unknown or revoked token and for any `cb_` chatbot key; 403 when
 * the endpoint needs more than the token's scope allows (see `@RequireWrite()`,
 * `@RequireUnrestricted()`). On success the caller is available through `@CurrentAuth()`.
 */
@Injectable()
export class ApiTokenGuard implements CanActivate {
  constructor(
    private readonly tokens: ApiTokensService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const bearer = bearerFrom(req.headers.authorization);
    if (!bearer) throw bearerUnauthenticated('Missing or invalid authorization header');
    if (isChatbotKey(bearer))
      throw bearerUnauthenticated('Chatbot keys are accepted only by the chatbot endpoints');
    let auth: AuthContext;
    try {
      auth = await this.tokens.authenticate(bearer);
    } catch (err) {
      if (err instanceof DomainError && err.code === ErrorCode.UNAUTHENTICATED)
        throw bearerUnauthenticated(err.message);
      throw err;
    }
    req.auth = auth;
    const need = this.reflector.getAllAndOverride<TokenAccess | undefined>(TOKEN_ACCESS_METADATA, [
      ctx.getHandler(),
      ctx.getClass(),
    ]);
    if (need === 'write') assertCanWrite(auth);
    if (need === 'unrestricted') assertUnrestricted(auth);
    return true;
  }
}

/** Guards a controller or handler with ApiTokenGuard (and documents the bearer scheme). */
export const ApiTokenAuth = (): ClassDecorator & MethodDecorator =>
  applyDecorators(UseGuards(ApiTokenGuard), ApiBearerAuth());

/** 403 for a read-only token (indexing, deleting documents, ...). */
export const RequireWrite = (): ClassDecorator & MethodDecorator =>
  SetMetadata(TOKEN_ACCESS_METADATA, 'write' satisfies TokenAccess);

/** 403 for any restricted token (managing tokens, password, two-factor, accounts, deletion). */
export const RequireUnrestricted = (): ClassDecorator & MethodDecorator =>
  SetMetadata(TOKEN_ACCESS_METADATA, 'unrestricted' satisfies TokenAccess);

/** The AuthContext ApiTokenGuard attached to the request. */
export const CurrentAuth = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthContext => {
  const auth = ctx.switchToHttp().getRequest<AuthedRequest>().auth;
  if (!auth) throw bearerUnauthenticated('Missing or invalid authorization header');
  return auth;
});
