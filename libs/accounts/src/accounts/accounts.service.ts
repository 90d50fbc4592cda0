import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '@docqa/common';
import { CreateAccountCommand } from '../commands';
import { AccountsRepository, AccountWithMembers } from './accounts.repository';

/** `GET /accounts` item, exactly the spec's fields. */
export interface AccountView {
  id: number;
  name: string;
  personal: boolean;
  owner_id: number;
  created_at: string;
  updated_at: string;
  account_users: Array<{ id: number; user_id: number }>;
}

function view({ account, members }: AccountWithMembers): AccountView {
  return {
    id: account.id,
    name: account.name,
    personal: account.personal,
    owner_id: account.ownerId as number,
    created_at: account.createdAt.toISOString(),
    updated_at: account.updatedAt.toISOString(),
    account_users: members.map((m) => ({ id: m.id, user_id: m.userId })),
  };
}

@Injectable()
export class AccountsService {
  private readonly logger = new Logger('Accounts');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly accounts: AccountsRepository,
  ) {}

  async listForUser(userId: number): Promise<AccountView[]> {
    return (await this.accounts.listForUser(userId)).map(view);
  }

  /** Extension: a team account; the caller becomes its owner and first member. */
  async createTeam(userId: number, cmd: CreateAccountCommand): Promise<AccountView> {
    const { account } = await this.ds.transaction((m) =>
      this.accounts.createWithOwner(m, { name: cmd.name, personal: false, ownerId: userId }),
    );
    const created = await this.accounts.findForUser(userId, account.id);
    if (!created) throw DomainError.notFound('Account not found');
    this.logger.log({ userId, accountId: account.id }, 'team account created');
    return view(created);
  }
}
