import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AccountsRepository } from './accounts/accounts.repository';
import { AccountsService } from './accounts/accounts.service';
import { ApiTokenGuard } from './auth/api-token.guard';
import { ACCOUNT_DELETION_HOOKS, AccountDeletionHooks } from './deletion/account-deletion-hooks';
import { UserDeletionService } from './deletion/user-deletion.service';
import { LoginService } from './login/login.service';
import { RateLimiter } from './rate-limit/rate-limiter';
import { AccountSecrets } from './secrets';
import { ApiTokensRepository } from './tokens/api-tokens.repository';
import { ApiTokensService } from './tokens/api-tokens.service';
import { TwoFactorService } from './two-factor/two-factor.service';
import { PasswordHasher } from './users/password-hasher';
import { UsersRepository } from './users/users.repository';
import { UsersService } from './users/users.service';

/**
 * Users, login, tokens, two-factor, accounts and deletion. Global, so any surface module can put
 * `@ApiTokenAuth()` (ApiTokenGuard) on its controllers and inject the deletion hook registry
 * without importing this module. Needs ConfigModule and DbModule (TypeORM) in the app.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [
    AccountSecrets,
    PasswordHasher,
    UsersRepository,
    AccountsRepository,
    ApiTokensRepository,
    RateLimiter,
    ApiTokensService,
    TwoFactorService,
    LoginService,
    UsersService,
    AccountsService,
    AccountDeletionHooks,
    { provide: ACCOUNT_DELETION_HOOKS, useExisting: AccountDeletionHooks },
    UserDeletionService,
    ApiTokenGuard,
  ],
  exports: [
    ApiTokensService,
    ApiTokenGuard,
    RateLimiter,
    LoginService,
    UsersService,
    AccountsService,
    TwoFactorService,
    UserDeletionService,
    AccountDeletionHooks,
    ACCOUNT_DELETION_HOOKS,
  ],
})
export class AccountsModule {}
