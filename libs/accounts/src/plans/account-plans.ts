import { Injectable, Module } from '@nestjs/common';
import type { Plan } from '@docqa/db';
import { AccountsRepository } from '../accounts/accounts.repository';

/** The plans an operator can give an account (accounts.plan). */
export const PLANS: readonly Plan[] = ['free', 'pro', 'business'];

export function isPlan(v: unknown): v is Plan {
  return typeof v === 'string' && (PLANS as readonly string[]).includes(v);
}

export interface AccountPlan {
  id: number;
  name: string;
  plan: Plan;
}

/**
 * An account's plan. Set by an operator (`npm run cli -- plan set`), never by the account itself:
 * no API route calls `set`.
 */
@Injectable()
export class AccountPlansService {
  constructor(private readonly accounts: AccountsRepository) {}

  /** The account's plan, or null when there is no such account. */
  get(accountId: number): Promise<AccountPlan | null> {
    return this.accounts.planOf(accountId);
  }

  /** Sets the plan; returns it with the plan before, or null when there is no such account. */
  set(accountId: number, plan: Plan): Promise<(AccountPlan & { previous: Plan }) | null> {
    if (!isPlan(plan)) throw new Error(`Unknown plan "${String(plan)}"`);
    return this.accounts.setPlan(accountId, plan);
  }
}

/** For operator commands that only need plans (ConfigModule and DbModule come from the caller). */
@Module({ providers: [AccountsRepository, AccountPlansService], exports: [AccountPlansService] })
export class AccountPlansModule {}
