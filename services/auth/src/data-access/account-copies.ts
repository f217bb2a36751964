// Copies of account records in this replica's memory, for the reads that only show an account to its
// owner (`GET /me`): exact under a feed of changes, as access tokens are under the revocation feed.
//
// Every write to an account (AnnouncedAccounts, wrapping the store) is announced on a Redis stream of
// its own (`<REVOCATION_STREAM>:accounts`, followed by the same machinery as the revocation feed) and
// applied here at once; every replica follows the stream within milliseconds. A copy is used only
// while all of these hold, else the store is read (and nothing is copied):
// - the feed is within its bound (REVOCATION_MAX_STALENESS_MS), as for revocations;
// - the account has no change in the feed's window (`retentionMs`, twice a copy's lifetime), so a copy
//   read from the store just before a change, and stored just after it was announced, is never used;
// - the copy is younger than `ttlMs`, which with the window above means no copy older than a change
//   outlives the change's entry.
// Security decisions (sign-in, a credential change, an admin's act) never read a copy: only
// `profileOf` does, and only what the owner is shown.
import type { AccountKind } from '@acct/shared';
import type { RevocationFeed } from '@acct/shared/redis';
import type { AccountProfiles } from '../domain/account/ports';
import type { Accounts } from '../domain/shared/ports';
import type { Account, AccountChanges, NewAccount } from '../domain/shared/account';

export interface AccountCopyOptions {
  /** How long a copy is used (ms); a change is kept in the feed twice as long. */
  ttlMs: number;
  /** Most copies held; the oldest goes first. */
  max: number;
}

/** The stream's entries name accounts as `<kind>:<id>`. */
const keyOf = (kind: AccountKind, id: string) => `${kind}:${id}`;

export class AccountCopies implements AccountProfiles {
  private readonly copies = new Map<string, { account: Account; at: number }>();
  private readonly now = Date.now;

  constructor(
    private readonly accounts: Record<AccountKind, Pick<Accounts, 'findById'>>,
    private readonly feed: Pick<RevocationFeed, 'fresh' | 'isRevoked' | 'publish'>,
    private readonly options: AccountCopyOptions,
  ) {}

  async profileOf(kind: AccountKind, id: string): Promise<Account | null> {
    const key = keyOf(kind, id);
    if (!this.feed.fresh || this.feed.isRevoked(key) !== false) {
      this.copies.delete(key);
      return this.accounts[kind].findById(id);
    }
    const copy = this.copies.get(key);
    if (copy && this.now() - copy.at < this.options.ttlMs) return copy.account;
    const at = this.now();
    const account = await this.accounts[kind].findById(id);
    // A change announced while the store was read: the copy could be older than it.
    if (account && this.feed.isRevoked(key) === false) this.keep(key, account, at);
    return account;
  }

  /** Announces that an account changed: every replica stops using its copy. Throws when Redis does not take it. */
  async changed(kind: AccountKind, id: string): Promise<void> {
    const key = keyOf(kind, id);
    this.copies.delete(key);
    await this.feed.publish([key], { retentionMs: this.options.ttlMs * 2 });
  }

  get size(): number {
    return this.copies.size;
  }

  private keep(key: string, account: Account, at: number): void {
    // Frozen: a copy is shared by every request that reads it.
    this.copies.delete(key);
    this.copies.set(key, { account: Object.freeze({ ...account }), at });
    if (this.copies.size > this.options.max) this.copies.delete(this.copies.keys().next().value as string);
  }
}

/**
 * The store of one kind's accounts, announcing every write on the feed of changes once the store
 * took it. A write whose announcement fails throws (the write stands; the caller's request fails, and
 * other replicas' copies last at most their lifetime).
 */
export class AnnouncedAccounts implements Accounts {
  constructor(
    private readonly kind: AccountKind,
    private readonly store: Accounts,
    private readonly copies: Pick<AccountCopies, 'changed'>,
  ) {}

  findByEmail(email: string) {
    return this.store.findByEmail(email);
  }

  findById(id: string) {
    return this.store.findById(id);
  }

  create(fields: NewAccount) {
    // Nothing to announce: no replica has a copy of an account that did not exist.
    return this.store.create(fields);
  }

  async update(id: string, changes: AccountChanges, options?: { ifEpoch?: number }) {
    const result = await this.store.update(id, changes, options);
    if (result && result !== 'email_taken') await this.copies.changed(this.kind, id);
    return result;
  }

  async remove(id: string) {
    const removed = await this.store.remove(id);
    if (removed) await this.copies.changed(this.kind, id);
    return removed;
  }

  countEnabled() {
    return this.store.countEnabled();
  }

  async upgradePasswordHash(id: string, previous: string, next: string) {
    await this.store.upgradePasswordHash(id, previous, next);
    await this.copies.changed(this.kind, id);
  }

  list(options: Parameters<Accounts['list']>[0]) {
    return this.store.list(options);
  }
}
