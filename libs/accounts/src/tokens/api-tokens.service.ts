import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { constantTimeEqual, DomainError, ErrorCode, sha256Hex } from '@docqa/common';
import { ApiTokenEntity, TokenScope } from '@docqa/db';
import { AuthContext, AuthScope } from '../auth/auth-context';
import { CreateTokenCommand } from '../commands';
import { AccountSecrets } from '../secrets';
import { isUniqueViolation } from '@docqa/db';
import { ApiTokensRepository } from './api-tokens.repository';
import { generateApiToken, looksLikeApiToken, maskToken, tokenDisplayPrefix } from './token-format';

export const DEFAULT_TOKEN_NAME = 'Default';
export const MAX_LIVE_TOKENS = 100;

export interface IssuedToken {
  id: number;
  name: string;
  token: string;
}

export interface TokenView {
  id: number;
  name: string;
  /** Masked: only the display prefix. The full token is shown once, at creation. */
  token: string;
  default: boolean;
  read_only: boolean;
  docset_names: string[] | null;
  created_at: string;
  last_used_at: string | null;
}

export interface CreatedTokenView extends TokenView {
  /** The full token, shown this once. */
  token: string;
}

function scopeOf(t: ApiTokenEntity): AuthScope {
  return {
    readOnly: t.scope?.readOnly === true,
    docSetNames: Array.isArray(t.scope?.docSetNames) ? [...t.scope.docSetNames] : null,
  };
}

function view(t: ApiTokenEntity, token: string): TokenView {
  const s = scopeOf(t);
  return {
    id: t.id,
    name: t.name,
    token,
    default: t.isDefault,
    read_only: s.readOnly,
    docset_names: s.docSetNames,
    created_at: t.createdAt.toISOString(),
    last_used_at: t.lastUsedAt ? t.lastUsedAt.toISOString() : null,
  };
}

/**
 * API tokens: `dq_` + 32 random bytes. Stored as SHA-256 hex (lookup) and AES-256-GCM ciphertext
 * bound to the owning user (so login can hand back the same default token). Never logged.
 */
@Injectable()
export class ApiTokensService {
  private readonly logger = new Logger('ApiTokens');

  constructor(
    private readonly repo: ApiTokensRepository,
    private readonly secrets: AccountSecrets,
  ) {}

  private aad(userId: number): string {
    return `api-token:user:${userId}`;
  }

  /** Creates a token row (inside the caller's transaction when `m` is given). */
  async issue(
    m: EntityManager | undefined,
    t: { userId: number; accountId: number; name: string; isDefault: boolean; scope: TokenScope | null },
  ): Promise<{ row: ApiTokenEntity; token: string }> {
    const token = generateApiToken();
    const row = await this.repo.insert(m, {
      ...t,
      tokenHash: sha256Hex(token),
      tokenEnc: this.secrets.tokens.encrypt(token, this.aad(t.userId)),
      tokenPrefix: tokenDisplayPrefix(token),
    });
    return { row, token };
  }

  /**
   * The user's default token, the same on every login. If it was revoked (or its ciphertext no
   * longer decrypts, e.g. after an APP_SECRET change), a new default token is issued.
   */
  async defaultToken(userId: number, accountId: number): Promise<string> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.repo.findLiveDefault(userId);
      if (current) {
        try {
          return this.secrets.tokens.decrypt(current.tokenEnc, this.aad(userId));
        } catch {
          this.logger.warn({ userId, tokenId: current.id }, 'default token does not decrypt; replacing it');
          await this.repo.revoke(userId, current.id);
          continue;
        }
      }
      try {
        const { token } = await this.issue(undefined, {
          userId,
          accountId,
          name: DEFAULT_TOKEN_NAME,
          isDefault: true,
          scope: null,
        });
        return token;
      } catch (err) {
        // Another login issued it concurrently (one live default per user): read that one.
        if (!isUniqueViolation(err)) throw err;
      }
    }
    throw new DomainError(ErrorCode.INTERNAL_ERROR, 'Could not issue a token');
  }

  /** Extension: a named token, optionally read-only and/or limited to docsets. Shown once. */
  async create(auth: AuthContext, cmd: CreateTokenCommand): Promise<CreatedTokenView> {
    if ((await this.repo.countLive(auth.userId)) >= MAX_LIVE_TOKENS) {
      throw new DomainError(
        ErrorCode.UNPROCESSABLE,
        `Validation failed: at most ${MAX_LIVE_TOKENS} live tokens`,
        {},
        {
          base: [`at most ${MAX_LIVE_TOKENS} live tokens; revoke one first`],
        },
      );
    }
    const scope: TokenScope | null =
      cmd.readOnly || cmd.docSetNames
        ? { readOnly: cmd.readOnly, docSetNames: cmd.docSetNames ?? undefined }
        : null;
    const { row, token } = await this.issue(undefined, {
      userId: auth.userId,
      accountId: auth.accountId,
      name: cmd.name,
      isDefault: false,
      scope,
    });
    this.logger.log({ userId: auth.userId, tokenId: row.id }, 'api token created');
    return view(row, token);
  }

  async list(userId: number): Promise<TokenView[]> {
    return (await this.repo.listLive(userId)).map((t) => view(t, maskToken(t.tokenPrefix)));
  }

  async revoke(userId: number, id: number): Promise<void> {
    if (!(await this.repo.revoke(userId, id))) throw DomainError.notFound('API token not found');
    this.logger.log({ userId, tokenId: id }, 'api token revoked');
  }

  /** Bearer token -> caller. 401 for anything but a live `dq_` token. */
  async authenticate(bearer: string): Promise<AuthContext> {
    if (!looksLikeApiToken(bearer)) throw DomainError.unauthenticated('Invalid API token');
    const hash = sha256Hex(bearer);
    const row = await this.repo.findLiveByHash(hash);
    if (!row || !constantTimeEqual(row.tokenHash, hash))
      throw DomainError.unauthenticated('Invalid API token');
    this.repo.touch(row.id).catch(() => undefined);
    return { userId: row.userId, accountId: row.accountId, tokenId: row.id, scope: scopeOf(row) };
  }
}
