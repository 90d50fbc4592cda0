import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AccountEntity, AccountUserEntity, rowsOf, type Plan } from '@docqa/db';

export interface AccountWithMembers {
  account: AccountEntity;
  members: Array<{ id: number; userId: number }>;
}

/** Accounts and memberships. Reads are scoped to a user's memberships. */
@Injectable()
export class AccountsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Creates an account owned by `ownerId` with the owner as its first member. */
  async createWithOwner(
    m: EntityManager,
    a: { name: string; personal: boolean; ownerId: number },
  ): Promise<{ account: AccountEntity; member: AccountUserEntity }> {
    const accounts = m.getRepository(AccountEntity);
    const account = await accounts.save(
      accounts.create({ name: a.name, personal: a.personal, ownerId: a.ownerId }),
    );
    const members = m.getRepository(AccountUserEntity);
    const member = await members.save(
      members.create({ accountId: account.id, userId: a.ownerId, role: 'owner' }),
    );
    return { account, member };
  }

  /** Accounts the user belongs to, oldest first, each with all of its members. */
  async listForUser(userId: number): Promise<AccountWithMembers[]> {
    const accounts = await this.ds
      .getRepository(AccountEntity)
      .createQueryBuilder('a')
      .innerJoin(AccountUserEntity, 'me', 'me.account_id = a.id AND me.user_id = :userId', { userId })
      .orderBy('a.id', 'ASC')
      .getMany();
    if (!accounts.length) return [];
    const members = await this.ds
      .getRepository(AccountUserEntity)
      .createQueryBuilder('au')
      .where('au.account_id IN (:...ids)', { ids: accounts.map((a) => a.id) })
      .orderBy('au.id', 'ASC')
      .getMany();
    return accounts.map((account) => ({
      account,
      members: members.filter((x) => x.accountId === account.id).map((x) => ({ id: x.id, userId: x.userId })),
    }));
  }

  async findForUser(userId: number, accountId: number): Promise<AccountWithMembers | null> {
    return (await this.listForUser(userId)).find((a) => a.account.id === accountId) ?? null;
  }

  async personalAccountId(userId: number, m?: EntityManager): Promise<number | null> {
    const rows: Array<{ id: number }> = await (m ?? this.ds.manager).query(
      `SELECT id FROM accounts WHERE owner_id = $1 AND personal ORDER BY id LIMIT 1`,
      [userId],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * For deleting a user: `sole` are the accounts that go with them (their personal account and
   * every account where nobody else is a member); `shared` are accounts other members keep.
   */
  async membershipsForDeletion(
    userId: number,
    m?: EntityManager,
  ): Promise<{ sole: number[]; shared: number[] }> {
    const rows: Array<{ id: number; personal: boolean; owner_id: number | null; others: string }> = await (
      m ?? this.ds.manager
    ).query(
      `SELECT a.id, a.personal, a.owner_id,
              (SELECT count(*) FROM account_users o WHERE o.account_id = a.id AND o.user_id <> $1) AS others
         FROM accounts a
        WHERE a.id IN (SELECT account_id FROM account_users WHERE user_id = $1)
           OR (a.owner_id = $1 AND a.personal)
        ORDER BY a.id`,
      [userId],
    );
    const sole: number[] = [];
    const shared: number[] = [];
    for (const r of rows) {
      if ((r.personal && r.owner_id === userId) || Number(r.others) === 0) sole.push(r.id);
      else shared.push(r.id);
    }
    return { sole, shared };
  }

  /** Hands ownership of shared accounts the user owns to their longest-standing other member. */
  async transferOwnership(m: EntityManager, userId: number, accountIds: number[]): Promise<void> {
    if (!accountIds.length) return;
    await m.query(
      `UPDATE accounts a
          SET owner_id = (SELECT o.user_id FROM account_users o
                           WHERE o.account_id = a.id AND o.user_id <> $1 ORDER BY o.id LIMIT 1),
              updated_at = now()
        WHERE a.id = ANY($2::int[]) AND a.owner_id = $1`,
      [userId, accountIds],
    );
    await m.query(
      `UPDATE account_users au SET role = 'owner'
        FROM accounts a
        WHERE au.account_id = a.id AND au.user_id = a.owner_id AND a.id = ANY($1::int[])`,
      [accountIds],
    );
  }

  async planOf(accountId: number): Promise<{ id: number; name: string; plan: Plan } | null> {
    const rows: Array<{ id: number; name: string; plan: Plan }> = await this.ds.query(
      `SELECT id, name, plan FROM accounts WHERE id = $1`,
      [accountId],
    );
    return rows[0] ?? null;
  }

  /** Sets the plan; returns it with the plan before (one statement), or null for no such account. */
  async setPlan(
    accountId: number,
    plan: Plan,
  ): Promise<{ id: number; name: string; plan: Plan; previous: Plan } | null> {
    const result: unknown = await this.ds.query(
      `UPDATE accounts a SET plan = $2, updated_at = now()
         FROM (SELECT id, plan FROM accounts WHERE id = $1 FOR UPDATE) old
        WHERE a.id = old.id
        RETURNING a.id, a.name, a.plan, old.plan AS previous`,
      [accountId, plan],
    );
    return rowsOf<{ id: number; name: string; plan: Plan; previous: Plan }>(result)[0] ?? null;
  }

  /**
   * Deletes accounts; their documents, pages, runs, tokens, chatbot keys and memberships cascade.
   * What does not cascade (search chunks, the chatbot's outbox) the deletion hooks removed before.
   */
  async deleteAccounts(m: EntityManager, accountIds: number[]): Promise<void> {
    if (!accountIds.length) return;
    await m.query(`DELETE FROM accounts WHERE id = ANY($1::int[])`, [accountIds]);
  }
}
