// Auth's ports in memory, for the domain's own tests: each a few lines over a Map, answering as the
// stores do (the state tests hold the real adapters to the same answers). A use case takes only the
// ports its `Needs<…>` names, so a test builds just those.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import pino from 'pino';
import type { ManagedApp, ManagedApps } from '../src/domain/apps/ports';
import type { AppConsent, AppConsents, BotCheck } from '../src/domain/shared/ports';
import type { AccessClaims, AccountKind, EventInput, EventOutbox, EventType } from '@acct/shared';
import { factorMethods } from '../src/domain/factors';
import type { Account, AccountChanges, NewAccount } from '../src/domain/shared/account';
import type {
  Accounts,
  AppLogouts,
  ActivityEntry,
  ActivityFilter,
  ActivityLog,
  Ceremonies,
  CeremonyState,
  CodeGuesses,
  DesktopData,
  DesktopRelease,
  Factor,
  FactorRef,
  Factors,
  AccountLinks,
  AttemptResult,
  Avatars,
  FactorRecoveries,
  PendingRecovery,
  LinkPurpose,
  NewLink,
  ResetTokens,
  RateLimits,
  LimiterName,
  LimitAnswer,
  ResetRequests,
  ResetRequest,
  UsedLink,
  FlowKey,
  FlowPurpose,
  NewActivity,
  NewFactor,
  NewSignInFlow,
  OpenChallenge,
  PasskeyCeremonies,
  PasswordHasher,
  ProofVerdict,
  SecondFactor,
  AuthPolicy,
  Identities,
  IdentityClaims,
  IdentityProviders,
  LinkedIdentity,
  LoginAttempts,
  Sessions,
  SessionInfo,
  NewSession,
  RotateResult,
  AppGrant,
  AppGrants,
  TokenSigner,
  RequestContext,
  SignInFlow,
  SignInFlows,
  TakenFlow,
  TotpCodes,
  TrustedBrowsers,
} from '../src/domain/ports';

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
  async beginRegistration(sessionId: string, state: CeremonyState) {
    this.pending.set(sessionId, state);
  }
  async finishRegistration(sessionId: string) {
    const state = this.pending.get(sessionId);
    this.pending.delete(sessionId);
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
  readonly entries: Array<ActivityEntry & { cosmetic?: true }> = [];
  constructor(private readonly maxPerAccount = 1_000) {}
  /** As the store: a repeated cosmetic entry replaces its last record, counted; each kind is trimmed by its own. */
  async record(entry: NewActivity) {
    const at = new Date();
    const mine = (e: ActivityEntry & { cosmetic?: true }) => e.kind === entry.kind && e.accountId === entry.accountId;
    let repeated = {};
    if (entry.cosmetic) {
      const same = this.entries.findLastIndex((e) => mine(e) && e.cosmetic && e.type === entry.type && String(e.details) === String(entry.details) && e.actor?.id === entry.actor?.id);
      if (same >= 0) {
        const [previous] = this.entries.splice(same, 1);
        repeated = { repeated: (previous.repeated ?? 1) + 1, firstAt: previous.firstAt ?? previous.at };
      }
    }
    this.entries.push({ ...entry, id: objectId(), at, ...repeated });
    const tier = this.entries.filter((e) => mine(e) && Boolean(e.cosmetic) === Boolean(entry.cosmetic));
    for (const old of tier.slice(0, Math.max(0, tier.length - this.maxPerAccount))) this.entries.splice(this.entries.indexOf(old), 1);
  }
  async list(filter: ActivityFilter) {
    return this.entries
      .filter((e) => (!filter.kind || e.kind === filter.kind) && (!filter.accountId || e.accountId === filter.accountId) && (!filter.type || e.type === filter.type))
      .filter((e) => !filter.actorId || e.actor?.id === filter.actorId)
      .reverse()
      .slice(0, filter.limit)
      .map(({ cosmetic: _cosmetic, ...entry }) => entry);
  }
  /** Drops the account's history but the entries of type `keep`, as the store does. */
  async forget(kind: AccountKind, accountId: string, keep?: string) {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i].kind === kind && this.entries[i].accountId === accountId && this.entries[i].type !== keep) this.entries.splice(i, 1);
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

/**
 * Sessions in memory, with the store's rules (redis-sessions.ts): a refresh token rotates once, the
 * one it replaced presented again ends the session (`reused`), an ended session is not active, and
 * revokeAll ends every session of the account.
 */
export class MemorySessions implements Sessions {
  readonly live = new Map<string, { owner: NewSession; token: string; previous?: string; createdAt: Date; lastUsedAt: Date; endsAt: number }>();
  private next = 0;
  async create(owner: NewSession) {
    // The store's shape (22 URL-safe characters), which the use cases check.
    const sessionId = `sid-${String(++this.next).padStart(18, '0')}`;
    const token = `${sessionId}.0`;
    const endsAt = Date.now() + 7 * 86_400_000;
    this.live.set(sessionId, { owner, token, createdAt: new Date(), lastUsedAt: new Date(), endsAt });
    return { token, sessionId, endsAt, evicted: [] };
  }
  async list(kind: AccountKind, accountId: string): Promise<SessionInfo[]> {
    return [...this.live]
      .filter(([, s]) => s.owner.kind === kind && s.owner.accountId === accountId)
      .map(([id, s]) => ({ id, createdAt: s.createdAt, lastUsedAt: s.lastUsedAt, expiresAt: new Date(s.endsAt), ...(s.owner.app ? { app: s.owner.app } : {}) }));
  }
  async revokeSession(kind: AccountKind, accountId: string, sessionId: string) {
    const s = this.live.get(sessionId);
    if (!s || s.owner.kind !== kind || s.owner.accountId !== accountId) return false;
    return this.live.delete(sessionId);
  }
  async revokeOthers(kind: AccountKind, accountId: string, keep: string) {
    const ended = (await this.list(kind, accountId)).map((s) => s.id).filter((id) => id !== keep);
    for (const id of ended) this.live.delete(id);
    return ended;
  }
  async rotate(kind: AccountKind, presented: string): Promise<RotateResult> {
    const sessionId = presented.split('.')[0];
    const s = this.live.get(sessionId);
    if (!s) return { outcome: 'missing' };
    if (s.owner.kind !== kind) return { outcome: 'wrong_kind' };
    const owner = { kind: s.owner.kind, accountId: s.owner.accountId, role: s.owner.role };
    if (presented === s.previous) {
      this.live.delete(sessionId);
      return { outcome: 'reused', sessionId, owner };
    }
    if (presented !== s.token) return { outcome: 'invalid' };
    s.previous = s.token;
    s.token = `${sessionId}.${Number(s.token.split('.')[1]) + 1}`;
    s.lastUsedAt = new Date();
    return { outcome: 'rotated', token: s.token, sessionId, owner, endsAt: s.endsAt };
  }
  async isActive(kind: AccountKind, sessionId: string, accountId: string) {
    const s = this.live.get(sessionId);
    return !!s && s.owner.kind === kind && s.owner.accountId === accountId;
  }
  async revoke(kind: AccountKind, presented: string) {
    const sessionId = presented.split('.')[0];
    const s = this.live.get(sessionId);
    if (!s || s.owner.kind !== kind || s.token !== presented) return undefined;
    this.live.delete(sessionId);
    return { sessionId, accountId: s.owner.accountId };
  }
  async revokeAll(kind: AccountKind, accountId: string) {
    const ended = (await this.list(kind, accountId)).map((s) => s.id);
    for (const id of ended) this.live.delete(id);
    return ended.length;
  }
}

/** The apps' grants in memory, with the store's rules (redis-app-grants.ts): a session attached once, a removed grant stays removed. */
export class MemoryAppGrants implements AppGrants {
  readonly grants = new Map<string, AppGrant>();
  async save(grantId: string, grant: AppGrant) {
    this.grants.set(grantId, { ...grant });
  }
  async find(grantId: string) {
    const grant = this.grants.get(grantId);
    return grant ? { ...grant } : undefined;
  }
  async attachSession(grantId: string, sessionId: string, sessionToken: string) {
    const grant = this.grants.get(grantId);
    if (!grant || grant.sessionId) return false;
    Object.assign(grant, { sessionId, sessionToken });
    return true;
  }
  async updateSessionToken(grantId: string, sessionToken: string) {
    const grant = this.grants.get(grantId);
    if (grant) grant.sessionToken = sessionToken;
  }
  async remove(grantId: string) {
    const grant = this.grants.get(grantId);
    this.grants.delete(grantId);
    return grant;
  }
  async ofApp(appId: string) {
    return [...this.grants].filter(([, grant]) => grant.appId === appId).map(([id]) => id);
  }
}

/** What people allowed apps in memory, with redis-app-grants.ts's rules: scopes added up, forgotten per app or all. */
export class MemoryAppConsents implements AppConsents {
  readonly kept = new Map<string, AppConsent>();
  async find(kind: AccountKind, accountId: string, appId: string) {
    const consent = this.kept.get(`${kind}:${accountId}:${appId}`);
    return consent ? { ...consent, scopes: [...consent.scopes] } : undefined;
  }
  async allow(kind: AccountKind, accountId: string, app: { id: string; name: string }, scopes: string[]) {
    const before = this.kept.get(`${kind}:${accountId}:${app.id}`)?.scopes ?? [];
    this.kept.set(`${kind}:${accountId}:${app.id}`, { appId: app.id, appName: app.name, scopes: [...new Set([...before, ...scopes])], at: new Date() });
  }
  async list(kind: AccountKind, accountId: string) {
    return [...this.kept].filter(([key]) => key.startsWith(`${kind}:${accountId}:`)).map(([, consent]) => ({ ...consent }));
  }
  async forget(kind: AccountKind, accountId: string, appId?: string) {
    for (const key of [...this.kept.keys()]) if (key === `${kind}:${accountId}:${appId}` || (!appId && key.startsWith(`${kind}:${accountId}:`))) this.kept.delete(key);
  }
}

/**
 * A bot check in memory: off until a test turns it on; then an answer passes when it is one of
 * `solved`, once (as a solved ALTCHA challenge does).
 */
export class MemoryBotCheck implements BotCheck {
  kind: BotCheck['kind'] = 'off';
  readonly solved = new Set<string>();
  async challenge() {
    return this.kind === 'altcha' ? { kind: 'altcha' as const, challenge: { n: this.solved.size } } : { kind: 'off' as const };
  }
  async passes(answer: string) {
    return this.solved.delete(answer);
  }
}

/** The console's apps in memory, with mongo-managed-apps.ts's rules: ids unique, oldest first, copies out. */
export class MemoryManagedApps implements ManagedApps {
  readonly apps = new Map<string, ManagedApp>();
  private copy(app: ManagedApp): ManagedApp {
    return structuredClone(app);
  }
  async create(app: ManagedApp) {
    if (this.apps.has(app.id)) return false;
    this.apps.set(app.id, this.copy(app));
    return true;
  }
  async find(id: string) {
    const app = this.apps.get(id);
    return app ? this.copy(app) : undefined;
  }
  async list(limit: number) {
    return [...this.apps.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).slice(0, limit).map((a) => this.copy(a));
  }
  async update(id: string, changes: Parameters<ManagedApps['update']>[1]) {
    const app = this.apps.get(id);
    if (!app) return undefined;
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) delete (app as unknown as Record<string, unknown>)[field];
      else (app as unknown as Record<string, unknown>)[field] = structuredClone(value);
    }
    app.updatedAt = new Date();
    return this.copy(app);
  }
  async remove(id: string) {
    return this.apps.delete(id);
  }
}

/**
 * The apps' watches on their sessions in memory, with the rules of redis-app-grants.ts and
 * app-logouts.ts: an end claims the watches it finds (so an app is told once), a forgotten session is
 * never told. `told` is every app told, in order.
 */
export class MemoryAppLogouts implements AppLogouts {
  readonly watched = new Map<string, { kind: AccountKind; accountId: string; sessionId: string; appId: string; sid: string }>();
  readonly told: Array<{ kind: AccountKind; accountId: string; appId: string; sid: string }> = [];
  async watch(kind: AccountKind, accountId: string, sessionId: string, app: { appId: string; sid: string }) {
    this.watched.set(`${kind}:${accountId}:${sessionId}`, { kind, accountId, sessionId, ...app });
  }
  async ended(kind: AccountKind, accountId: string, sessionIds: string[] | 'all') {
    for (const [key, watch] of this.watched) {
      if (watch.kind !== kind || watch.accountId !== accountId || (sessionIds !== 'all' && !sessionIds.includes(watch.sessionId))) continue;
      this.watched.delete(key);
      this.told.push({ kind, accountId, appId: watch.appId, sid: watch.sid });
    }
  }
  async forget(kind: AccountKind, accountId: string, sessionId: string) {
    this.watched.delete(`${kind}:${accountId}:${sessionId}`);
  }
}

/** Second factors in memory, one Map of them: codes kept as given (the store hashes them), steps used once and in order. */
export class MemoryFactors implements Factors {
  /** By slot, as the store's: a factor the account holds once by account, any other by its id alone. */
  private readonly held = new Map<string, Factor & { codes: string[]; used: string[] }>();
  private slot = (kind: AccountKind, accountId: string, { method, id }: FactorRef) => (id === method ? `${method}:${kind}:${accountId}` : `${method}:${id}`);
  private mine(kind: AccountKind, accountId: string, ref: FactorRef) {
    const factor = this.held.get(this.slot(kind, accountId, ref));
    return factor?.kind === kind && factor.accountId === accountId ? factor : undefined;
  }
  private plain = ({ codes: _codes, used: _used, ...factor }: Factor & { codes: string[]; used: string[] }): Factor => ({ ...factor, details: { ...factor.details } });
  async list(kind: AccountKind, accountId: string) {
    return [...this.held.values()].filter((f) => f.kind === kind && f.accountId === accountId).map(this.plain);
  }
  async find(method: SecondFactor, id: string) {
    const factor = this.held.get(`${method}:${id}`);
    return factor ? this.plain(factor) : null;
  }
  async add(kind: AccountKind, accountId: string, factor: NewFactor, replace?: 'unconfirmed' | 'any') {
    const slot = this.slot(kind, accountId, factor);
    const there = this.held.get(slot);
    if (there && !(replace === 'any' || (replace === 'unconfirmed' && !there.confirmed))) return 'exists' as const;
    const { codes, counter, details, ...rest } = factor;
    this.held.delete(slot);
    this.held.set(slot, { ...rest, kind, accountId, createdAt: new Date(), lastUsedAt: null, counter: counter ?? -1, codesLeft: codes?.length ?? 0, codes: [...(codes ?? [])], used: [], details: { ...details } });
    return 'added' as const;
  }
  async confirm(kind: AccountKind, accountId: string, ref: FactorRef, counter: number) {
    const factor = this.mine(kind, accountId, ref);
    if (!factor || factor.confirmed) return false;
    Object.assign(factor, { confirmed: true, counter, lastUsedAt: new Date() });
    return true;
  }
  async use(kind: AccountKind, accountId: string, ref: FactorRef, counter: number, options: { strictly?: boolean; keep?: boolean } = {}) {
    const factor = this.mine(kind, accountId, ref);
    if (!factor?.confirmed || (options.strictly && counter <= factor.counter)) return false;
    Object.assign(factor, { counter, lastUsedAt: new Date() });
    if (options.keep) delete factor.suspended;
    return true;
  }
  async spend(kind: AccountKind, accountId: string, ref: FactorRef, code: string) {
    const factor = this.mine(kind, accountId, ref);
    if (!factor) return undefined;
    if (factor.used.includes(code)) return 'used' as const;
    if (!factor.codes.includes(code)) return undefined;
    factor.codes = factor.codes.filter((c) => c !== code);
    factor.used.push(code);
    Object.assign(factor, { codesLeft: factor.codes.length, lastUsedAt: new Date() });
    return factor.codes.length;
  }
  async remove(kind: AccountKind, accountId: string, ref: FactorRef) {
    return this.mine(kind, accountId, ref) !== undefined && this.held.delete(this.slot(kind, accountId, ref));
  }
  async suspend(kind: AccountKind, accountId: string, methods: readonly SecondFactor[]) {
    const fresh = [...this.held.values()].filter((f) => f.kind === kind && f.accountId === accountId && methods.includes(f.method) && !f.suspended);
    for (const f of fresh) f.suspended = true;
    return fresh.map(this.plain);
  }
  async removeAll(kind: AccountKind, accountId: string) {
    const gone = await this.list(kind, accountId);
    for (const f of gone) this.held.delete(this.slot(kind, accountId, f));
    return gone;
  }
}

/** The one-per-account factors, by the ids the methods give them. */
export const APP = { method: 'totp', id: 'totp' } as const;
export const CODES = { method: 'recovery_code', id: 'recovery_code' } as const;

/** Test setup in the store's terms: an authenticator waiting for its first code (seed `S`). */
export const startApp = (factors: Factors, kind: AccountKind, accountId: string) => factors.add(kind, accountId, { ...APP, confirmed: false, secret: 'S' }, 'unconfirmed');
/** A passkey as the passkey module stores one. */
export const addPasskey = (factors: Factors, kind: AccountKind, accountId: string, p: { id: string; name: string; publicKey: string; counter: number; transports: string[] }) =>
  factors.add(kind, accountId, { id: p.id, method: 'passkey', name: p.name, confirmed: true, counter: p.counter, details: { publicKey: p.publicKey, transports: p.transports } });
/** A new set of recovery codes, as the recovery-codes module stores one. */
export const replaceCodes = (factors: Factors, kind: AccountKind, accountId: string, codes: string[]) => factors.add(kind, accountId, { ...CODES, confirmed: true, codes }, 'any');

/** What an account holds, read back in a few words: its authenticator, its passkeys, its codes left. */
export async function heldFactors(factors: Factors, kind: AccountKind, accountId: string) {
  const list = await factors.list(kind, accountId);
  const app = list.find((f) => f.method === 'totp');
  return {
    totp: app ? { confirmed: app.confirmed, lastStep: app.counter, createdAt: app.createdAt } : null,
    passkeys: list.filter((f) => f.method === 'passkey').map((p) => ({ id: p.id, name: p.name, counter: p.counter, createdAt: p.createdAt, suspended: p.suspended })),
    recoveryCodesLeft: list.find((f) => f.method === 'recovery_code')?.codesLeft ?? 0,
  };
}

/** StepTotp's code for a time step: step 42 is 000042. */
export const appCode = (step: number) => String(step).padStart(6, '0');

/** An authenticator whose codes are `step` written as six digits: code 000042 is step 42, within one step of `now`. */
export class StepTotp implements TotpCodes {
  now = 100;
  newSecret() {
    return 'SECRETBASE32';
  }
  stepOf(_secret: string, code: string) {
    const step = Number(code);
    return Math.abs(step - this.now) <= 1 ? step : undefined;
  }
  uri(secret: string, issuer: string, label: string) {
    return `otpauth://totp/${issuer}:${label}?secret=${secret}`;
  }
}

/** Wrong codes per account: a wait of a second once `limit` were wrong in a row. */
export class MemoryCodeGuesses implements CodeGuesses {
  readonly wrong = new Map<string, number>();
  constructor(private readonly limit = 5) {}
  async waitBeforeGuess(kind: AccountKind, accountId: string) {
    return (this.wrong.get(`${kind}:${accountId}`) ?? 0) >= this.limit ? 1000 : 0;
  }
  async guessesPerChallenge() {
    return this.limit;
  }
  async failed(kind: AccountKind, accountId: string) {
    this.wrong.set(`${kind}:${accountId}`, (this.wrong.get(`${kind}:${accountId}`) ?? 0) + 1);
  }
  async succeeded(kind: AccountKind, accountId: string) {
    this.wrong.delete(`${kind}:${accountId}`);
  }
}

/** The events a use case recorded, in order. */
export class MemoryOutbox implements EventOutbox {
  readonly events: Array<{ type: EventType; input: unknown }> = [];
  async add<T extends EventType>(type: T, input: EventInput<T>) {
    this.events.push({ type, input });
    return objectId();
  }
}

/**
 * Sign-in flows in memory, with the store's rules (redis-sign-in-flows.ts): an attempt is counted
 * before the proof, a second step has the account's guesses and ends at its next login, a passkey or
 * provider flow is taken once and only with its secret. `now` moves time for the lifetimes.
 */
export class MemorySignInFlows implements SignInFlows {
  readonly flows = new Map<string, SignInFlow & { secret: string; max: number; code?: string; link?: string; guesser?: string; armed?: true }>();
  private readonly owners = new Map<string, string>();
  now = () => Date.now();
  constructor(
    private readonly guesses: CodeGuesses,
    private readonly ttlMs: Record<FlowPurpose, number> = { second_step: 300_000, passkey: 300_000, provider: 600_000, email: 600_000 },
  ) {}

  async open(flow: NewSignInFlow, options: { mailCode?: boolean; key?: { id: string; secret: string } } = {}) {
    const id = options.key?.id ?? objectId();
    const secret = options.key?.secret ?? objectId();
    const expiresAt = new Date(this.now() + this.ttlMs[flow.purpose]);
    const secondStep = flow.purpose === 'second_step' ? flow.accountId : undefined;
    const guesser = secondStep ?? (flow.purpose === 'email' && flow.email ? `address:${flow.kind}:${flow.email}` : undefined);
    const max = guesser ? await this.guesses.guessesPerChallenge(flow.kind, guesser) : 1;
    const code = options.mailCode ? String(Math.floor(Math.random() * 1_000_000)).padStart(6, '0') : undefined;
    const { ip: _ip, ...stored } = flow;
    this.flows.set(id, { ...stored, expiresAt, attempts: 0, secret, max, code, ...(guesser ? { guesser } : {}) });
    if (secondStep) {
      const previous = this.owners.get(`${flow.kind}:${secondStep}`);
      if (previous) this.flows.delete(previous);
      this.owners.set(`${flow.kind}:${secondStep}`, id);
    }
    return { id, token: `${id}.${secret}`, code, expiresAt };
  }

  async attempt(token: string, prove: (challenge: OpenChallenge) => Promise<ProofVerdict>): Promise<AttemptResult> {
    return this.counted(token, 'second_step', prove);
  }

  async enterCode(token: string, code: string): Promise<AttemptResult> {
    return this.counted(token, 'email', async (challenge) => challenge.isMailedCode(code));
  }

  private async counted(token: string, purpose: 'second_step' | 'email', prove: (challenge: OpenChallenge) => Promise<ProofVerdict>): Promise<AttemptResult> {
    const [id, secret] = token.split('.');
    const flow = this.live(id);
    const guesser = flow?.guesser ?? flow?.accountId;
    if (!flow || flow.secret !== secret || flow.purpose !== purpose || !guesser || flow.attempts >= flow.max) return { outcome: 'invalid_challenge' };
    const wait = await this.guesses.waitBeforeGuess(flow.kind, guesser);
    if (wait > 0) return { outcome: 'throttled', retryAfterMs: wait };
    flow.attempts += 1;
    const verdict = await prove({ kind: flow.kind, accountId: flow.accountId ?? '', isMailedCode: (c) => flow.code !== undefined && c === flow.code, webauthnChallenge: flow.webauthnChallenge });
    if (verdict === true) {
      if (!this.flows.delete(id)) return { outcome: 'invalid_challenge' };
      await this.guesses.succeeded(flow.kind, guesser);
      return { outcome: 'verified', flow: publicFlow(flow) };
    }
    if (verdict !== 'used') await this.guesses.failed(flow.kind, guesser);
    return { outcome: 'wrong_code' };
  }

  async arm(flowId: string, owner: { accountId: string; credentialEpoch: number } | { signUp: true }) {
    const flow = this.live(flowId);
    if (!flow || flow.purpose !== 'email' || flow.armed) return undefined;
    const link = objectId();
    const code = String(Math.floor(Math.random() * 1_000_000)).padStart(6, '0');
    Object.assign(flow, { armed: true, link, code }, 'signUp' in owner ? { signUp: true } : { accountId: owner.accountId, credentialEpoch: owner.credentialEpoch });
    return { link: `${flowId}.${link}`, code, expiresAt: flow.expiresAt };
  }

  async takeLink(link: string, browserFlow: string | undefined): Promise<TakenFlow> {
    const [id, secret] = link.split('.');
    const flow = this.live(id);
    if (!flow || flow.purpose !== 'email' || !flow.link || flow.link !== secret || flow.attempts >= flow.max) return { outcome: 'unknown' };
    if (browserFlow !== `${id}.${flow.secret}`) return { outcome: 'other_browser', flow: publicFlow(flow) };
    this.flows.delete(id);
    return { outcome: 'taken', flow: publicFlow(flow) };
  }

  async take(purpose: Exclude<FlowPurpose, 'second_step'>, key: FlowKey): Promise<TakenFlow> {
    const [id, secret] = 'token' in key ? key.token.split('.') : [key.id, key.secret];
    const flow = this.live(id);
    if (!flow || flow.purpose !== purpose) return { outcome: 'unknown' };
    if (flow.secret !== secret) return { outcome: 'other_browser', flow: publicFlow(flow) };
    this.flows.delete(id);
    return { outcome: 'taken', flow: publicFlow(flow) };
  }

  async attachWebauthn(token: string, webauthnChallenge: string) {
    const [id, secret] = token.split('.');
    const flow = this.live(id);
    if (!flow || flow.secret !== secret || flow.purpose !== 'second_step' || !flow.accountId) return undefined;
    flow.webauthnChallenge = webauthnChallenge;
    return { kind: flow.kind, accountId: flow.accountId };
  }

  async ownerOf(token: string) {
    const [id, secret] = token.split('.');
    const flow = this.live(id);
    if (!flow || flow.secret !== secret || flow.purpose !== 'second_step' || !flow.accountId) return undefined;
    return { kind: flow.kind, accountId: flow.accountId, ...(flow.credentialEpoch !== undefined ? { credentialEpoch: flow.credentialEpoch } : {}) };
  }

  async cancel(token: string) {
    this.flows.delete(token.split('.')[0]);
  }

  async cancelFor(kind: AccountKind, accountId: string) {
    const id = this.owners.get(`${kind}:${accountId}`);
    if (id) this.flows.delete(id);
  }

  private live(id: string) {
    const flow = this.flows.get(id);
    if (flow && flow.expiresAt.getTime() <= this.now()) this.flows.delete(id);
    return flow && flow.expiresAt.getTime() > this.now() ? flow : undefined;
  }
}

function publicFlow(flow: SignInFlow & { secret: string; max: number; code?: string; link?: string; guesser?: string; armed?: true }): SignInFlow {
  const { secret: _secret, max: _max, code: _code, link: _link, guesser: _guesser, armed: _armed, ...rest } = flow;
  return { ...rest };
}

const signInRp = { rpId: 'example.com', rpName: 'Example', origins: ['https://example.com'] };

/** `h:<password>` is the hash of a password. */
export const memoryHasher: PasswordHasher = {
  hash: async (password) => `h:${password}`,
  verify: async (password, hash) => hash === `h:${password}`,
  needsUpgrade: () => false,
  burn: async () => undefined,
};

/** Verifies an answer whose `response.signedBy` names the challenge it signed. */
const signedByChallenge: PasskeyCeremonies = {
  /** The origin an answer names (`response.origin`), as a browser's client data would. */
  originOf: (answer) => (answer as { response?: { origin?: string } }).response?.origin,
  registrationOptions: async () => ({ challenge: 'reg' }),
  verifyRegistration: async () => undefined,
  authenticationOptions: async (_rp, options) => ({ challenge: options.challenge ?? `challenge-${Math.random()}` }),
  verifyAuthentication: async (_rp, answer, challenge, stored) => ((answer as { response: { signedBy?: string } }).response.signedBy === challenge ? { counter: stored.counter + 1 } : undefined),
};

/**
 * Everything a sign-in works with, in memory: accounts of both kinds (`make` adds one whose password
 * is 'right password'), sessions that record what they opened, login attempts that record what was
 * reserved, flows, factors, passkeys that verify an answer whose `response.signedBy` is the
 * challenge, identities and providers whose next claims a test sets (`providers.claims`).
 */
export async function memorySignIn() {
  const accounts = { user: new MemoryAccounts(), admin: new MemoryAccounts() };
  const opened: Array<{ kind: AccountKind; accountId: string }> = [];
  /** Accounts whose sessions all ended, with the epoch they ended under. */
  const ended: Array<{ kind: AccountKind; accountId: string; credentialEpoch: number }> = [];
  const sessions = {
    create: async (owner: { kind: AccountKind; accountId: string }) => {
      opened.push({ kind: owner.kind, accountId: owner.accountId });
      return { token: `refresh-${opened.length}`, sessionId: `sid-${opened.length}`, endsAt: Date.now() + 60_000, evicted: [] };
    },
    revokeAll: async (kind: AccountKind, accountId: string, credentialEpoch: number) => (ended.push({ kind, accountId, credentialEpoch }), 0),
  } as unknown as Sessions;
  const attempts: string[] = [];
  const loginAttempts: LoginAttempts = {
    reserve: async (kind, email) => (attempts.push(`reserve ${kind} ${email}`), { allowed: true }),
    release: async (kind, email) => void attempts.push(`release ${kind} ${email}`),
    succeed: async (kind, email) => void attempts.push(`succeed ${kind} ${email}`),
    isKnown: async () => false,
  };
  const codeGuesses = new MemoryCodeGuesses(3);
  const deps = {
    accounts,
    rateLimits: { consume: async () => ({ allowed: true as const }) },
    loginAttempts,
    hasher: memoryHasher,
    passwordScreen: { screens: true, isCommon: (password: string) => password === 'password123' },
    sessions,
    tokens: { sign: (claims: { sub: string }) => `access-for-${claims.sub}` } as unknown as TokenSigner,
    flows: new MemorySignInFlows(codeGuesses),
    factors: new MemoryFactors(),
    factorMethods,
    totp: new StepTotp(),
    passkeys: signedByChallenge,
    ceremonies: new MemoryCeremonies(),
    codeGuesses,
    outbox: new MemoryOutbox(),
    activity: new MemoryActivity(),
    audit: silentLogger,
    logger: silentLogger,
    identities: new MemoryIdentities(),
    identityProviders: new FakeProviders(),
    links: new MemoryLinks(),
    resetRequests: new MemoryResetRequests(),
    trustedBrowsers: new MemoryTrustedBrowsers(),
    appLogouts: new MemoryAppLogouts(),
    botCheck: new MemoryBotCheck(),
    appConsents: new MemoryAppConsents(),
    resets: new MemoryResetTokens(),
    recoveries: new MemoryFactorRecoveries(),
    /** One process: the lock is always free. */
    locks: { run: async <T>(_name: string, work: () => Promise<T>) => work() },
    avatars: new MemoryAvatars(),
    policy: {
      otpTtlSeconds: 300,
      resetTokenTtlSeconds: 1800,
      resetUrlBase: { user: 'https://app.example/reset', admin: 'https://admin.example/reset' },
      emailLinks: { urlBase: 'https://app.example/email', ttlSeconds: 86_400, undoSeconds: 604_800 },
      recovery: { delaySeconds: 72 * 3600, reminderSeconds: 24 * 3600 },
      emailVerification: 'soft',
      mfa: { totpIssuer: 'Example', webauthn: signInRp, trustedBrowserDays: 30 },
      identity: { appUrls: ['https://app.example/'], flowTtlMs: 600_000, adminProviders: ['idp'] },
      // Off, as a deployment's default; a test of it turns it on.
      emailSignIn: { kinds: [], signUp: false, ttlSeconds: 600, urlBase: { user: 'https://app.example/login', admin: 'https://admin.example/login' } },
    } as unknown as AuthPolicy,
    metrics: { login() {}, refresh() {}, rateLimited() {}, otp() {} },
  };
  const make = async (kind: AccountKind, email: string, extra: Partial<NewAccount> = {}) =>
    (await accounts[kind].create({ email, name: 'Grace', passwordHash: 'h:right password', role: kind, ...extra })) as { id: string; credentialEpoch: number };
  return { deps, make, opened, attempts, ended };
}

/** Trusted browsers in memory, with the store's rules (redis-trusted-browsers.ts): good under their epoch, until they end. */
export class MemoryTrustedBrowsers implements TrustedBrowsers {
  readonly browsers = new Map<string, { kind: AccountKind; accountId: string; epoch: number; secret: string; createdAt: Date; expiresAt: Date; ip?: string; userAgent?: string }>();
  now = () => Date.now();
  constructor(private readonly ttlMs = 30 * 86_400_000) {}
  async add(kind: AccountKind, accountId: string, epoch: number, seen: { ip?: string; userAgent?: string }) {
    const id = objectId();
    const secret = objectId();
    this.browsers.set(id, { kind, accountId, epoch, secret, createdAt: new Date(this.now()), expiresAt: new Date(this.now() + this.ttlMs), ...seen });
    return `${id}.${secret}`;
  }
  async holds(kind: AccountKind, accountId: string, epoch: number, token: string) {
    const [id, secret] = token.split('.');
    const b = this.browsers.get(id);
    return b !== undefined && b.kind === kind && b.accountId === accountId && b.epoch === epoch && b.secret === secret && b.expiresAt.getTime() > this.now();
  }
  async list(kind: AccountKind, accountId: string, epoch: number) {
    return [...this.browsers.entries()]
      .filter(([, b]) => b.kind === kind && b.accountId === accountId && b.epoch === epoch && b.expiresAt.getTime() > this.now())
      .map(([id, b]) => ({ id, createdAt: b.createdAt, expiresAt: b.expiresAt, ...(b.ip ? { ip: b.ip } : {}), ...(b.userAgent ? { userAgent: b.userAgent } : {}) }))
      .reverse();
  }
  async remove(kind: AccountKind, accountId: string, id: string) {
    const b = this.browsers.get(id);
    return b !== undefined && b.kind === kind && b.accountId === accountId && this.browsers.delete(id);
  }
  async removeAll(kind: AccountKind, accountId: string) {
    for (const [id, b] of this.browsers) if (b.kind === kind && b.accountId === accountId) this.browsers.delete(id);
  }
}

/** Pending factor recoveries in memory: one per account, each step taken once. */
export class MemoryFactorRecoveries implements FactorRecoveries {
  readonly pending = new Map<string, PendingRecovery & { reminded: boolean }>();
  async schedule(recovery: PendingRecovery) {
    const existing = this.pending.get(`${recovery.kind}:${recovery.accountId}`);
    if (existing) return { scheduled: false, recovery: plainRecovery(existing) };
    this.pending.set(`${recovery.kind}:${recovery.accountId}`, { ...recovery, reminded: false });
    return { scheduled: true, recovery };
  }
  async pendingFor(kind: AccountKind, accountId: string) {
    const found = this.pending.get(`${kind}:${accountId}`);
    return found ? plainRecovery(found) : undefined;
  }
  async cancel(kind: AccountKind, accountId: string) {
    return this.pending.delete(`${kind}:${accountId}`);
  }
  async claimReminder(now: Date) {
    const found = [...this.pending.values()].find((r) => !r.reminded && r.remindAt <= now && r.dueAt > now);
    if (!found) return undefined;
    found.reminded = true;
    return plainRecovery(found);
  }
  async claimDue(now: Date) {
    const found = [...this.pending.values()].find((r) => r.dueAt <= now);
    if (!found) return undefined;
    this.pending.delete(`${found.kind}:${found.accountId}`);
    return plainRecovery(found);
  }
}

const plainRecovery = ({ reminded: _reminded, ...recovery }: PendingRecovery & { reminded: boolean }): PendingRecovery => recovery;

/** Linked identities in memory, with the store's rule: a subject is one account's, and an account has one identity per provider. */
export class MemoryIdentities implements Identities {
  readonly linked: LinkedIdentity[] = [];
  async find(provider: string, subject: string) {
    return this.linked.find((i) => i.provider === provider && i.subject === subject) ?? null;
  }
  async listFor(kind: AccountKind, accountId: string) {
    return this.linked.filter((i) => i.kind === kind && i.accountId === accountId);
  }
  async add(identity: LinkedIdentity) {
    const taken = this.linked.some((i) => (i.provider === identity.provider && i.subject === identity.subject) || (i.provider === identity.provider && i.kind === identity.kind && i.accountId === identity.accountId));
    if (taken) return 'taken' as const;
    this.linked.push(identity);
    return 'added' as const;
  }
  async remove(kind: AccountKind, accountId: string, provider: string) {
    const at = this.linked.findIndex((i) => i.kind === kind && i.accountId === accountId && i.provider === provider);
    if (at >= 0) this.linked.splice(at, 1);
    return at >= 0;
  }
  async removeAll(kind: AccountKind, accountId: string) {
    const before = this.linked.length;
    this.linked.splice(0, this.linked.length, ...this.linked.filter((i) => i.kind !== kind || i.accountId !== accountId));
    return before - this.linked.length;
  }
}

/** One provider, `idp`: its authorization URL carries the state, and its callback answers the claims a test set. */
export class FakeProviders implements IdentityProviders {
  claims: IdentityClaims = { subject: 'sub-1', email: 'grace@example.com', emailVerified: true, name: 'Grace' };
  readonly exchanged: Array<{ nonce: string; codeVerifier: string }> = [];
  list() {
    return [{ id: 'idp', name: 'Example IdP', available: true }];
  }
  has(id: string) {
    return id === 'idp';
  }
  async authorizationUrl(id: string, _kind: AccountKind, checks: { state: string }) {
    return id === 'idp' ? { url: `https://idp.example/authorize?state=${checks.state}` } : { refused: 'unknown' as const };
  }
  async exchange(_id: string, _kind: AccountKind, _query: URLSearchParams, checks: { nonce: string; codeVerifier: string }) {
    this.exchanged.push({ nonce: checks.nonce, codeVerifier: checks.codeVerifier });
    return this.claims;
  }
}

/** Mailed links in memory, with the store's rules (MongoAccountLinks): single use, expiring, one live verify or change link per account, undo links each for their week. */
export class MemoryLinks implements AccountLinks {
  readonly links: Array<NewLink & { token: string; createdAt: Date; used: boolean }> = [];
  async store(token: string, link: NewLink) {
    if (link.purpose !== 'undo_email_change') await this.retireAll(link.purpose, link.kind, link.accountId);
    // Each later than the one before, as links issued by separate requests are (a test makes them within a millisecond).
    const createdAt = new Date(Math.max(Date.now(), (this.links.at(-1)?.createdAt.getTime() ?? 0) + 1));
    this.links.push({ ...link, token, createdAt, used: false });
  }
  async consume(purpose: LinkPurpose, token: string): Promise<UsedLink | undefined> {
    const link = this.links.find((l) => l.purpose === purpose && l.token === token && !l.used && l.expiresAt.getTime() > Date.now());
    if (!link) return undefined;
    link.used = true;
    return { kind: link.kind, accountId: link.accountId, email: link.email, createdAt: link.createdAt, credentialEpoch: link.credentialEpoch };
  }
  async retireAll(purpose: LinkPurpose | 'all', kind: AccountKind, accountId: string, options: { after?: Date } = {}) {
    for (const l of this.links) {
      if ((purpose === 'all' || l.purpose === purpose) && l.kind === kind && l.accountId === accountId && (!options.after || l.createdAt > options.after)) l.used = true;
    }
  }
  async heldFor(kind: AccountKind, email: string) {
    return this.links.find((l) => l.purpose === 'undo_email_change' && l.kind === kind && l.email === email && !l.used && l.expiresAt.getTime() > Date.now())?.accountId;
  }
  /** The newest live link of the purpose for the account. */
  live(purpose: LinkPurpose, accountId: string) {
    return this.links.filter((l) => l.purpose === purpose && l.accountId === accountId && !l.used).at(-1);
  }
}

/** Reset tokens in memory: one live per account, used once, under the epoch they were issued under. */
export class MemoryResetTokens implements ResetTokens {
  readonly tokens = new Map<string, { kind: AccountKind; accountId: string; expiresAt: Date; credentialEpoch: number }>();
  async store(token: string, kind: AccountKind, accountId: string, expiresAt: Date, credentialEpoch: number) {
    await this.retireAll(kind, accountId);
    this.tokens.set(token, { kind, accountId, expiresAt, credentialEpoch });
  }
  async find(token: string, kind: AccountKind) {
    const t = this.tokens.get(token);
    return t && t.kind === kind && t.expiresAt.getTime() > Date.now() ? t.accountId : undefined;
  }
  async consume(token: string, kind: AccountKind) {
    const t = this.tokens.get(token);
    if (!t || t.kind !== kind || t.expiresAt.getTime() <= Date.now()) return undefined;
    this.tokens.delete(token);
    return { accountId: t.accountId, credentialEpoch: t.credentialEpoch };
  }
  async retireAll(kind: AccountKind, accountId: string) {
    for (const [token, t] of this.tokens) if (t.kind === kind && t.accountId === accountId) this.tokens.delete(token);
  }
}

/** Avatars in memory, by file id. */
export class MemoryAvatars implements Avatars {
  readonly files = new Map<string, Buffer>();
  readonly removed: string[] = [];
  async save(_userId: string, content: Buffer) {
    const id = objectId();
    this.files.set(id, content);
    return id;
  }
  open(fileId: string) {
    return Readable.from([this.files.get(fileId) ?? Buffer.alloc(0)]);
  }
  async remove(fileId: string) {
    this.files.delete(fileId);
    this.removed.push(fileId);
  }
}

/**
 * Rate limits in memory: each named limit allows `budgets[name]` points per key (unlimited when not
 * given), then answers a retry after a minute; `spent` lists every key that was charged, in order.
 */
export class MemoryRateLimits implements RateLimits {
  readonly used = new Map<string, number>();
  readonly spent: string[] = [];
  constructor(private readonly budgets: Partial<Record<LimiterName, number>> = {}) {}
  async consume(name: LimiterName, key: string): Promise<LimitAnswer> {
    const at = `${name} ${key}`;
    this.spent.push(at);
    const used = (this.used.get(at) ?? 0) + 1;
    this.used.set(at, used);
    const budget = this.budgets[name];
    return budget === undefined || used <= budget ? { allowed: true } : { allowed: false, retryAfterMs: 60_000 };
  }
}

/** Forgot-password requests in memory, queued as the worker would find them. */
export class MemoryResetRequests implements ResetRequests {
  readonly queued: ResetRequest[] = [];
  async enqueue(request: ResetRequest) {
    this.queued.push(request);
  }
  async claim() {
    const request = this.queued.shift();
    return request ? { ...request, id: objectId(), attempts: 0 } : undefined;
  }
  async remove() {}
}
