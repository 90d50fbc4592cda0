import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import {
  ACCOUNT_DELETION_HOOKS,
  AccountDeletionHook,
  AccountDeletionHookProvider,
  AccountDeletionHooks,
} from './account-deletion-hooks';

const seen: string[] = [];

@AccountDeletionHookProvider()
@Injectable()
class SearchHook implements AccountDeletionHook {
  async beforeAccountDeleted(accountId: number) {
    seen.push(`search:${accountId}`);
  }
}

@Injectable()
class NotAHook {
  async beforeAccountDeleted() {
    seen.push('should not run');
  }
}

@Module({ providers: [SearchHook, NotAHook] })
class IndexingLikeModule {}

describe('AccountDeletionHooks', () => {
  beforeEach(() => seen.splice(0));

  it('discovers decorated providers of any module and takes runtime registrations', async () => {
    const mod = await Test.createTestingModule({
      imports: [DiscoveryModule, IndexingLikeModule],
      providers: [
        AccountDeletionHooks,
        { provide: ACCOUNT_DELETION_HOOKS, useExisting: AccountDeletionHooks },
      ],
    }).compile();
    const app = await mod.init();
    const hooks = app.get<AccountDeletionHooks>(ACCOUNT_DELETION_HOOKS);
    hooks.register({ beforeAccountDeleted: async (id) => void seen.push(`chatbot:${id}`) });
    await hooks.beforeAccountDeleted(7);
    expect(seen).toEqual(['search:7', 'chatbot:7']);
    await app.close();
  });

  it('stops at the first failing hook', async () => {
    const mod = await Test.createTestingModule({
      imports: [DiscoveryModule],
      providers: [AccountDeletionHooks],
    }).compile();
    const hooks = mod.get(AccountDeletionHooks);
    hooks.register({
      beforeAccountDeleted: async () => {
        throw new Error('search down');
      },
    });
    hooks.register({ beforeAccountDeleted: async () => void seen.push('later') });
    await expect(hooks.beforeAccountDeleted(1)).rejects.toThrow('search down');
    expect(seen).toEqual([]);
  });
});
