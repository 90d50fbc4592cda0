import { Injectable, Logger, OnApplicationBootstrap, SetMetadata } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';

/**
 * Runs before an account's rows are deleted (user deletion), while they still exist, so a module
 * can remove what the database does not cascade: search chunks, open indexing runs (Temporal),
 * stored files. Hooks must be idempotent: if one throws, nothing is deleted and the caller may
 * retry the whole deletion.
 */
export interface AccountDeletionHook {
  beforeAccountDeleted(accountId: number): Promise<void>;
}

/** Injection token of the registry (an `AccountDeletionHooks`). */
export const ACCOUNT_DELETION_HOOKS = Symbol('ACCOUNT_DELETION_HOOKS');
/** Metadata key set by `@AccountDeletionHookProvider()`. */
export const ACCOUNT_DELETION_HOOK_METADATA = 'docqa:account-deletion-hook';

/**
 * Marks a provider class as an account deletion hook. Listing the class in any module's
 * `providers` is enough: the registry discovers it at start-up.
 *
 * ```ts
 * @AccountDeletionHookProvider()
 * @Injectable()
 * export class SearchChunksDeletionHook implements AccountDeletionHook { ... }
 * ```
 */
export const AccountDeletionHookProvider = (): ClassDecorator =>
  SetMetadata(ACCOUNT_DELETION_HOOK_METADATA, true);

function isHook(v: unknown): v is AccountDeletionHook {
  return typeof (v as AccountDeletionHook | null)?.beforeAccountDeleted === 'function';
}

/**
 * The registry (a multi-provider in effect): hooks come from `@AccountDeletionHookProvider()`
 * classes found by discovery, and from `register()` for hooks built at runtime.
 */
@Injectable()
export class AccountDeletionHooks implements OnApplicationBootstrap {
  private readonly logger = new Logger('AccountDeletion');
  private readonly hooks: AccountDeletionHook[] = [];
  private discovered = false;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    this.discover();
  }

  register(hook: AccountDeletionHook): void {
    if (!isHook(hook)) throw new Error('AccountDeletionHooks.register: not an AccountDeletionHook');
    if (!this.hooks.includes(hook)) this.hooks.push(hook);
  }

  list(): readonly AccountDeletionHook[] {
    this.discover();
    return [...this.hooks];
  }

  /** Runs every hook for the account, one after another; the first failure stops the deletion. */
  async beforeAccountDeleted(accountId: number): Promise<void> {
    for (const hook of this.list()) {
      try {
        await hook.beforeAccountDeleted(accountId);
      } catch (err) {
        this.logger.error(
          { accountId, hook: hook.constructor?.name, errName: (err as Error)?.name },
          'account deletion hook failed',
        );
        throw err;
      }
    }
  }

  private discover(): void {
    if (this.discovered) return;
    this.discovered = true;
    for (const wrapper of this.discovery.getProviders()) {
      const { metatype, instance } = wrapper;
      if (!metatype || typeof metatype !== 'function' || !instance) continue;
      if (!this.reflector.get<boolean>(ACCOUNT_DELETION_HOOK_METADATA, metatype as object as never)) continue;
      if (isHook(instance)) this.register(instance);
    }
  }
}
