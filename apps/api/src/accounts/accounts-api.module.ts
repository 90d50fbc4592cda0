import { Module } from '@nestjs/common';
import { AccountsModule } from '@docqa/accounts';
import { AccountsController } from './accounts.controller';
import { ApiTokensController } from './api-tokens.controller';
import { AuthController } from './auth.controller';
import { TwoFactorController } from './two-factor.controller';
import { UsersController } from './users.controller';

/** Account API surface (`/api/v1`): users, login, profile, password, accounts, tokens, two-factor. */
@Module({
  imports: [AccountsModule],
  controllers: [
    UsersController,
    AuthController,
    AccountsController,
    ApiTokensController,
    TwoFactorController,
  ],
})
export class AccountsApiModule {}
