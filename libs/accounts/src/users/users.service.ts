import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  ACCOUNTS_CONFIG,
  AccountsConfig,
  constantTimeEqual,
  DomainError,
  PublicBaseUrl,
} from '@docqa/common';
import { AccountsRepository } from '../accounts/accounts.repository';
import { ChangePasswordCommand, RegisterCommand, unprocessable } from '../commands';
import { avatarColour, avatarSvg, initialsOf, profileHtml } from '../profile/html';
import { signGlobalId, verifySignedGlobalId } from '../profile/sgid';
import { AccountSecrets } from '../secrets';
import { ApiTokensService, DEFAULT_TOKEN_NAME, IssuedToken } from '../tokens/api-tokens.service';
import { PasswordHasher } from './password-hasher';
import { passwordPolicyProblem } from './password-policy';
import { UsersRepository } from './users.repository';

export interface RegisteredUser {
  user: { id: number; email: string; name: string; api_tokens: IssuedToken[] };
}

export interface Profile {
  id: number;
  name: string;
  avatar_url: string;
  sgid: string;
  content: string;
}

const EMAIL_TAKEN = 'has already been taken';
const AVATAR_SIG_CHARS = 22;

/** Registration, profile (`GET /me`), password change and the generated avatar. */
@Injectable()
export class UsersService {
  private readonly logger = new Logger('Users');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(ACCOUNTS_CONFIG) private readonly accountsConfig: AccountsConfig,
    private readonly users: UsersRepository,
    private readonly accounts: AccountsRepository,
    private readonly tokens: ApiTokensService,
    private readonly hasher: PasswordHasher,
    private readonly secrets: AccountSecrets,
    private readonly publicBaseUrl: PublicBaseUrl,
  ) {}

  /** Creates the user, their personal account (owner + membership) and the default token, atomically. */
  async register(cmd: RegisterCommand): Promise<RegisteredUser> {
    if (this.accountsConfig.requireTermsOfService && !cmd.termsAccepted) {
      throw unprocessable({ terms_of_service: ['must be accepted'] });
    }
    if (await this.users.emailTaken(cmd.email)) throw unprocessable({ email: [EMAIL_TAKEN] });
    const passwordHash = await this.hasher.hash(cmd.password);
    const result = await this.ds.transaction(async (m) => {
      const user = await this.users.insert(m, {
        email: cmd.email,
        name: cmd.name,
        passwordHash,
        termsAcceptedAt: cmd.termsAccepted ? new Date() : null,
      });
      if (!user) return null;
      const { account } = await this.accounts.createWithOwner(m, {
        name: cmd.name || cmd.email,
        personal: true,
        ownerId: user.id,
      });
      const { row, token } = await this.tokens.issue(m, {
        userId: user.id,
        accountId: account.id,
        name: DEFAULT_TOKEN_NAME,
        isDefault: true,
        scope: null,
      });
      return { user, token: { id: row.id, name: row.name, token } };
    });
    // Lost a race with a concurrent registration of the same address.
    if (!result) throw unprocessable({ email: [EMAIL_TAKEN] });
    this.logger.log({ userId: result.user.id }, 'user registered');
    const { user, token } = result;
    return { user: { id: user.id, email: user.email, name: user.name, api_tokens: [token] } };
  }

  /** `avatar_url` is absolute on the service's public base URL (never the request's Host). */
  async profile(userId: number): Promise<Profile> {
    const u = await this.users.findById(userId);
    if (!u) throw DomainError.unauthenticated('Invalid API token');
    const avatarUrl = `${this.publicBaseUrl.get()}${this.avatarPath(u.id)}`;
    return {
      id: u.id,
      name: u.name,
      avatar_url: avatarUrl,
      sgid: this.sgidFor(u.id),
      content: profileHtml({ id: u.id, name: u.name, email: u.email, avatarUrl }),
    };
  }

  async changePassword(userId: number, cmd: ChangePasswordCommand): Promise<{ success: true }> {
    const u = await this.users.findById(userId);
    if (!u) throw DomainError.unauthenticated('Invalid API token');
    if (!(await this.hasher.verify(u.passwordHash, cmd.currentPassword))) {
      throw unprocessable({ current_password: ['is invalid'] });
    }
    const problem = passwordPolicyProblem(cmd.password, u.email);
    if (problem) throw unprocessable({ password: [problem] });
    await this.users.updatePasswordHash(userId, await this.hasher.hash(cmd.password));
    this.logger.log({ userId }, 'password changed');
    return { success: true };
  }

  /** `/api/v1/users/{id}/avatar.svg?s=...`: signed, so avatars cannot be enumerated by id. */
  avatarPath(userId: number): string {
    return `/api/v1/users/${userId}/avatar.svg?s=${this.avatarSignature(userId)}`;
  }

  private avatarSignature(userId: number): string {
    return this.secrets.avatar.sign(`avatar:${userId}`).slice(0, AVATAR_SIG_CHARS);
  }

  /** The generated SVG avatar; 404 for a bad signature or an unknown user. */
  async avatar(userId: number, signature: string | undefined): Promise<string> {
    if (!signature || !constantTimeEqual(this.avatarSignature(userId), signature)) {
      throw DomainError.notFound('Avatar not found');
    }
    const u = await this.users.findById(userId);
    if (!u) throw DomainError.notFound('Avatar not found');
    return avatarSvg(initialsOf(u.name, u.email), avatarColour(u.id));
  }

  /** Signed global id of a user (`gid://docqa/User/{id}`, HMAC-SHA256 with a key from APP_SECRET). */
  sgidFor(userId: number): string {
    return signGlobalId(this.secrets.sgid, 'User', userId);
  }

  /** The user id inside a signed global id, or null when it is not a valid User sgid. */
  verifySgid(sgid: string): number | null {
    const r = verifySignedGlobalId(this.secrets.sgid, sgid);
    return r && r.model === 'User' ? r.id : null;
  }
}
