// Auth's ports in memory, for the domain's own tests: each a few lines over a Map, answering as the
// stores do (the state tests hold the real adapters to the same answers). A use case takes only the
// ports its `Needs<…>` names, so a test builds just those.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import type { AccessClaims, AccountKind } from '@acct/shared';
import type { Account, AccountChanges, NewAccount } from '../src/domain/account';
import type { Accounts, ActivityEntry, ActivityFilter, ActivityLog, Ceremonies, CeremonyState, DesktopData, DesktopRelease, NewActivity, RequestContext } from '../src/domain/ports';

const objectId = () => randomBytes(12).toString('hex');

export class MemoryAccounts implements Accounts {
  readonly byId = new Map<string, Account>();

  async findByEmail(email: string) {
    return [...this.byId.values()].find((a) => a.email === email) ?? null;
  }
  async findById(id: string) {
    return this.byId.get(id) ?? null;
  }
  async create(fields: NewAccount): Promise<Account | 'email_taken'> {
    if (await this.findByEmail(fields.email)) return 'email_taken';
    const now = new Date();
    const account: Account = { id: objectId(), twoFactorEnabled: false, disabled: false, avatar: null, credentialEpoch: 0, createdAt: now, updatedAt: now, ...fields };
    this.byId.set(account.id, account);
    return account;
  }
  async update(id: string, changes: AccountChanges, options: { ifEpoch?: number } = {}) {
    const account = this.byId.get(id);
    if (!account || (options.ifEpoch !== undefined && account.credentialEpoch !== options.ifEpoch)) return null;
    const { endSessions, ...fields } = changes;
    const updated = { ...account, ...fields, credentialEpoch: account.credentialEpoch + (endSessions ? 1 : 0), updatedAt: new Date() };
    this.byId.set(id, updated);
    return updated;
  }
  async remove(id: string) {
    const account = this.byId.get(id) ?? null;
    this.byId.delete(id);
    return account;
  }
  async countEnabled() {
    return [...this.byId.values()].filter((a) => !a.disabled).length;
  }
  async upgradePasswordHash(id: string, previous: string, next: string) {
    const account = this.byId.get(id);
    if (account?.passwordHash === previous) account.passwordHash = next;
  }
  async list(options: { query?: string; after?: string; limit: number; emailVerified?: boolean; disabled?: boolean }) {
    const query = options.query?.toLowerCase();
    return [...this.byId.values()]
      .sort((a, b) => a.id.localeCompare(b.id))
      .filter((a) => !options.after || a.id > options.after)
      .filter((a) => !query || a.email.toLowerCase().includes(query) || a.name.toLowerCase().includes(query))
      .filter((a) => options.emailVerified === undefined || (a.emailVerified !== false) === options.emailVerified)
      .filter((a) => options.disabled === undefined || a.disabled === options.disabled)
      .slice(0, options.limit);
  }
}

export class MemoryCeremonies implements Ceremonies {
  readonly proofs = new Map<string, number>();
  readonly pending = new Map<string, CeremonyState>();
  async begin(purpose: 'login' | 'register', key: string | undefined, state: CeremonyState) {
    const token = key ?? objectId();
    this.pending.set(`${purpose}:${token}`, state);
    return token;
  }
  async finish(purpose: 'login' | 'register', key: string) {
    const state = this.pending.get(`${purpose}:${key}`);
    this.pending.delete(`${purpose}:${key}`);
    return state;
  }
  async markProof(sessionId: string, credentialEpoch: number) {
    this.proofs.set(sessionId, credentialEpoch);
  }
  async recentProof(sessionId: string) {
    return this.proofs.get(sessionId);
  }
}

export class MemoryActivity implements ActivityLog {
  readonly entries: ActivityEntry[] = [];
  async record(entry: NewActivity) {
    this.entries.push({ ...entry, id: objectId(), at: new Date() });
  }
  async list(filter: ActivityFilter) {
    return this.entries
      .filter((e) => (!filter.kind || e.kind === filter.kind) && (!filter.accountId || e.accountId === filter.accountId) && (!filter.type || e.type === filter.type))
      .filter((e) => !filter.actorId || e.actor?.id === filter.actorId)
      .reverse()
      .slice(0, filter.limit);
  }
  async forget(kind: AccountKind, accountId: string, keep?: string) {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i].kind === kind && this.entries[i].accountId === accountId && this.entries[i].id !== keep) this.entries.splice(i, 1);
  }
}

/** Desktop's releases as its internal routes keep them; `calls` records who asked with which token. */
export class MemoryDesktop implements DesktopData {
  readonly releasesKept: DesktopRelease[] = [];
  readonly calls: Array<{ what: string; authorization: string }> = [];
  async exportOf(authorization: string) {
    this.calls.push({ what: 'export', authorization });
    return { devices: [], sync: { items: 0, cursor: '0' } };
  }
  async releases(authorization: string, platform: string | undefined) {
    this.calls.push({ what: 'releases', authorization });
    return this.releasesKept.filter((r) => !platform || r.platform === platform);
  }
  async publishRelease(authorization: string, release: unknown) {
    this.calls.push({ what: 'publish', authorization });
    const given = release as Partial<DesktopRelease> & Pick<DesktopRelease, 'platform' | 'version' | 'url' | 'sha256'>;
    const kept: DesktopRelease = { ...given, notes: given.notes ?? '', mandatory: given.mandatory ?? false, publishedAt: new Date().toISOString(), withdrawnAt: null };
    this.releasesKept.push(kept);
    return kept;
  }
  async withdrawRelease(authorization: string, platform: string, version: string) {
    this.calls.push({ what: 'withdraw', authorization });
    const found = this.releasesKept.find((r) => r.platform === platform && r.version === version && !r.withdrawnAt);
    if (found) found.withdrawnAt = new Date().toISOString();
  }
}

export const silentLogger = pino({ level: 'silent' });

/** A request made with `actor`'s access token, from a test address. */
export const requestOf = (actor?: AccessClaims): RequestContext => ({ ip: '192.0.2.1', budget: '192.0.2.1', requestId: 'test', ...(actor ? { actor } : {}) });

/** The claims of an access token of the account's session `sid`. */
export const claimsOf = (kind: AccountKind, account: Pick<Account, 'id'>, sid = objectId()): AccessClaims => ({ kind, sub: account.id, sid, role: kind });
