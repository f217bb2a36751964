// The ports every feature uses: the request's context, accounts, sessions, recent proofs, rate
// limits, locks, password hashing, token signing, activity, metrics, and the policy the use cases apply.
import type { AccessClaims, AccountKind, EventOutbox, Logger, RevocationCheck } from '@acct/shared';
import type { Account, AccountChanges, NewAccount } from './account';
import type { FactorMethods, FactorRecoveries, Factors, Identities, LoginAttempts, SignInFlows, TrustedBrowsers } from './stores';

export type * from './stores';

export interface RequestContext {
  /** The client's address, as logged and sent in events. */
  ip: string;
  /** What the client's rate-limit budgets count under: its address, or its /64 for IPv6 (client-address.ts). */
  budget: string;
  requestId?: string;
  /** The verified caller, on the routes that use one (admin registration by an admin). */
  actor?: AccessClaims;
  /** Aborted when the client goes away before its answer: slow work for it is dropped. */
  signal?: AbortSignal;
  /** A browser page sent the request (it carried `Origin`): answers may say what a browser needs. */
  fromBrowserPage?: boolean;
  /** The client's User-Agent (cut to 200 characters): the device an activity record names. */
  userAgent?: string;
  /** On a login: the browser's trusted-browser cookie, if it has one (it may skip the second step). */
  trustedBrowser?: string;
  /** The language the gateway chose for the request (the page's switch, else Accept-Language): a mail to an account that chose none speaks it. */
  language?: string;
}

/** What happened to an account, as its owner and admins read it back (never a secret: names, dates, addresses of the request). */
export interface ActivityEntry {
  id: string;
  kind: AccountKind;
  accountId: string;
  /** What happened: `signed_in`, `sign_in_failed`, a security change (`totp_added` …), `password_reset`, `email_changed`, `sessions_ended`, `profile_updated` … */
  type: string;
  at: Date;
  ip?: string;
  userAgent?: string;
  /** Who did it, when not the account itself (an admin). */
  actor?: { kind: AccountKind; id: string };
  /** Lines about it: what changed (field names, never values), a method, a count. */
  details?: string[];
  /** A cosmetic entry repeated: how many times it happened, and when first (shared/activity.ts). */
  repeated?: number;
  firstAt?: Date;
}

export type NewActivity = Omit<ActivityEntry, 'id' | 'at' | 'repeated' | 'firstAt'> & {
  /**
   * A change of how the account looks, not of how it signs in: kept apart from the security entries,
   * so no number of them trims one, and one repeated collapses into its latest record.
   */
  cosmetic?: true;
};

export interface ActivityFilter {
  kind?: AccountKind;
  accountId?: string;
  type?: string;
  actorId?: string;
  /** Entries older than this id (the previous page's last). */
  before?: string;
  limit: number;
}

/** The accounts' activity history: kept ACTIVITY_RETENTION_DAYS, at most a bounded number per account. */
export interface ActivityLog {
  /**
   * Keeps an entry. Each account keeps at most `maxPerAccount` security entries and as many cosmetic
   * ones, each kind trimmed only by its own; a cosmetic entry repeated (same type, details and actor)
   * replaces the one before it, counted.
   */
  record(entry: NewActivity): Promise<void>;
  /** Newest first. */
  list(filter: ActivityFilter): Promise<ActivityEntry[]>;
  /** Drops an account's history but `keep` (a deletion keeps its own record, for the admins' log). */
  forget(kind: AccountKind, accountId: string, keep?: string): Promise<void>;
}

export interface Accounts {
  findByEmail(email: string): Promise<Account | null>;
  findById(id: string): Promise<Account | null>;
  /** The new account, or `email_taken` when the kind already has the address. */
  create(fields: NewAccount): Promise<Account | 'email_taken'>;
  /**
   * The changed account, null when there is none with the id (or, with `ifEpoch`, when its credential
   * epoch is another: a credential change came first), or `email_taken`.
   */
  update(id: string, changes: AccountChanges, options?: { ifEpoch?: number }): Promise<Account | null | 'email_taken'>;
  /** Deletes the account; answers it as it was, or null when there was none. */
  remove(id: string): Promise<Account | null>;
  /** How many accounts of the kind are not disabled. */
  countEnabled(): Promise<number>;
  /** Replaces the hash only if it is still `previous`, so a concurrent password change wins. */
  upgradePasswordHash(id: string, previous: string, next: string): Promise<void>;
  /** Accounts in id order after `after`, whose email or name contains `query` (any letter case), and whose flags are those given. */
  list(options: { query?: string; after?: string; limit: number; emailVerified?: boolean; disabled?: boolean }): Promise<Account[]>;
}

export interface SessionOwner {
  kind: AccountKind;
  accountId: string;
  role: string;
}

/**
 * The owner of a session about to open, the credential epoch of the account it was checked against,
 * and where it was opened from (the address and User-Agent the owner sees in their session list).
 */
export type NewSession = SessionOwner & { credentialEpoch: number; ip?: string; userAgent?: string; /** The app it signed in to, through this service as an OpenID provider. */ app?: SessionApp };

/** An app a session signed in to (domain/apps). */
export interface SessionApp {
  id: string;
  name: string;
}

/** A session just opened: its first refresh token, and the oldest sessions it ended to stay within the cap per account. */
export interface OpenedStoredSession {
  token: string;
  sessionId: string;
  /** The session's absolute end (epoch ms): no access token of it outlives this. */
  endsAt: number;
  evicted: string[];
}

export type RotateResult =
  /** `late_retry`: the token just rotated out, after the grace window, whose successor was never presented (an answer lost). */
  | { outcome: 'rotated' | 'grace' | 'late_retry'; token: string; sessionId: string; owner: SessionOwner; endsAt: number }
  | { outcome: 'missing' | 'wrong_kind' | 'expired' | 'invalid' | 'superseded' }
  | { outcome: 'reused'; sessionId: string; owner: SessionOwner };

export interface SessionInfo {
  id: string;
  createdAt: Date;
  /** When its refresh token was last rotated (its creation, before any refresh). */
  lastUsedAt: Date;
  /** The absolute end of the session (it may end earlier when unused). */
  expiresAt: Date;
  /** The address and User-Agent of the sign-in that opened it (absent on sessions opened before they were kept). */
  ip?: string;
  userAgent?: string;
  /** The app it signed in to, when it is an app's (domain/apps). */
  app?: SessionApp;
}

export interface Sessions {
  /**
   * Opens a session; `superseded` when the account's credentials changed after it was checked
   * (the epoch moved on), and then no session is left behind.
   */
  create(owner: NewSession): Promise<OpenedStoredSession | 'superseded'>;
  /** The account's live sessions, newest first. */
  list(kind: AccountKind, accountId: string): Promise<SessionInfo[]>;
  /** Ends one session of the account; answers whether it was there. */
  revokeSession(kind: AccountKind, accountId: string, sessionId: string): Promise<boolean>;
  /** Ends every session of the account but one; answers the ended ones' ids. */
  revokeOthers(kind: AccountKind, accountId: string, keepSessionId: string): Promise<string[]>;
  rotate(kind: AccountKind, presented: string): Promise<RotateResult>;
  isActive(kind: AccountKind, sessionId: string, accountId: string): Promise<boolean>;
  /** Ends the session of a presented refresh token; answers whose it was, when there was one. */
  revoke(kind: AccountKind, presented: string): Promise<{ sessionId: string; accountId: string } | undefined>;
  /**
   * Ends every session of the account, now and of any login that raced the change: the account's
   * credential epoch (already moved on in the store of accounts) becomes `credentialEpoch`, and a
   * session of an older epoch is refused wherever it is checked.
   */
  revokeAll(kind: AccountKind, accountId: string, credentialEpoch: number): Promise<number>;
}

/**
 * A signed-in session's short-lived state (Redis): the WebAuthn challenge of a passkey it is
 * registering (taken back once) and its recent proof of the password or a second factor. What comes
 * before a session is a sign-in flow's (sign-in/flow.ts).
 */
export interface Ceremonies {
  /** Stores the session's registration challenge (a newer one replaces it). */
  beginRegistration(sessionId: string, state: CeremonyState): Promise<void>;
  /** Takes the session's registration challenge back once: a second call answers undefined. */
  finishRegistration(sessionId: string): Promise<CeremonyState | undefined>;
  /** The session just proved the password or a second factor, under the account's credential epoch. */
  markProof(sessionId: string, credentialEpoch: number): Promise<void>;
  /** The credential epoch of the session's proof of the last STEP_UP_SECONDS; undefined without one. */
  recentProof(sessionId: string): Promise<number | undefined>;
}

/** A passkey registration under way: its WebAuthn challenge, for whom, and the credential epoch it started under. */
export interface CeremonyState {
  challenge: string;
  kind: AccountKind;
  accountId: string;
  credentialEpoch: number;
}

export type LimiterName = 'loginIp' | 'registerIp' | 'forgotIp' | 'forgotEmailIp' | 'forgotEmail' | 'resetIp' | 'otpIp' | 'passkeyOptionsIp' | 'passwordCheckIp' | 'emailLinkIp' | 'openIdStartIp' | 'botCheckIp';
export type LimitAnswer = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface RateLimits {
  /** Spends one point of the limit for `key`; answers whether there was one. */
  consume(name: LimiterName, key: string): Promise<LimitAnswer>;
}

/**
 * Why the hasher did not do a piece of work: too much already waiting for too long (`busy`), or the
 * caller went away or its deadline passed (`abandoned`). What the client is answered is the domain's.
 */
export interface PasswordWorkRefused {
  readonly refused: 'busy' | 'abandoned';
}

/**
 * Password hashing, bounded: under overload a hash or compare is refused rather than queued past its
 * use (answered, not thrown); `signal` tells that the client went away.
 */
export interface PasswordHasher {
  hash(password: string, signal?: AbortSignal): Promise<string | PasswordWorkRefused>;
  verify(password: string, hash: string, signal?: AbortSignal): Promise<boolean | PasswordWorkRefused>;
  /** Whether a hash was made at a lower cost than today's and should be remade at the next login. */
  needsUpgrade(hash: string): boolean;
  /** Spends one compare's time, so that an unknown email costs what a known one does. */
  burn(password: string, signal?: AbortSignal): Promise<void | PasswordWorkRefused>;
}

/** New passwords are screened against a bundled list of commonly breached ones (when the check is on). */
export interface PasswordScreen {
  /** Whether new passwords are screened at all (BREACHED_PASSWORD_CHECK): a form shows the rule only then. */
  readonly screens: boolean;
  isCommon(password: string): boolean;
}

export interface TokenSigner {
  /** A signed access token; it expires after the configured lifetime, or at `notAfterMs` if sooner. */
  sign(claims: AccessClaims, notAfterMs?: number): string;
}

/** Mutual exclusion across replicas, for a check and a write that must not interleave. */
export interface Locks {
  /** Runs `work` while holding the named lock; `busy` when another holder keeps it past the wait (the work never ran). */
  run<T>(name: string, work: () => Promise<T>): Promise<T | 'busy'>;
}

export type LoginOutcome = 'success' | 'otp_required' | 'invalid_credentials' | 'account_disabled' | 'email_not_verified' | 'rate_limited';
export type RefreshOutcome = 'rotated' | 'grace' | 'reused' | 'invalid' | 'missing';
export type OtpOutcome = 'issued' | 'verified' | 'wrong_code' | 'invalid_challenge' | 'throttled';

/** What the use cases count (metrics.ts makes them Prometheus counters). No label is an email, id or token. */
export interface AuthMetrics {
  login(kind: AccountKind, outcome: LoginOutcome): void;
  refresh(kind: AccountKind, outcome: RefreshOutcome): void;
  /** A request refused by a rate limit, or a login by the failed-attempt budget (`loginAttempts`). */
  rateLimited(limiter: LimiterName | 'loginAttempts'): void;
  otp(outcome: OtpOutcome): void;
}

/** The decisions of configuration the use cases apply. */
/** The scopes an app may ask for. */
export type AppScope = 'openid' | 'profile' | 'email' | 'offline_access';

/** What an app is, as an admin registers it (domain/apps) or the deployment declares it (OPENID_CLIENTS). */
export interface AppDefinition {
  name: string;
  /** Whose accounts sign in to it. Fixed at registration. */
  kind: AccountKind;
  /** The product's own: no consent page, and its access tokens are the product API's. */
  firstParty: boolean;
  /** It keeps a secret (a server): a public app has PKCE alone. Fixed at registration. */
  confidential: boolean;
  /** RFC 8252 (desktop, mobile): loopback redirects on any port and private-use schemes; never confidential. Fixed at registration. */
  native: boolean;
  /** RFC 8628: a CLI or a TV signs in by a code typed at /device. */
  deviceCode: boolean;
  /** Where the browser comes back, matched exactly. */
  redirectUris: string[];
  /** Where RP-initiated logout may send the browser, matched exactly. */
  postLogoutRedirectUris: string[];
  /** Where the app is told its sessions ended (back-channel logout). */
  backchannelLogoutUri?: string;
  scopes: AppScope[];
}

/** An app the deployment declares (OPENID_CLIENTS), as the console lists it: no secret, whether it has one. */
export type DeclaredApp = AppDefinition & { id: string };

export interface AuthPolicy {
  accessTokenTtlSeconds: number;
  otpTtlSeconds: number;
  resetTokenTtlSeconds: number;
  resetUrlBase: Record<AccountKind, string>;
  adminRegistrationOpen: boolean;
  /** Whether a new admin gets a second factor. */
  adminTwoFactor: boolean;
  emailVerification: 'off' | 'soft' | 'required';
  /** The page that takes email links (`?action=verify|confirm|undo&token=…`), and their lifetimes. */
  emailLinks: { urlBase: string; ttlSeconds: number; undoSeconds: number };
  /** A removal of second factors confirmed by the mailbox: how long it waits, and how long before it the owner is mailed again. */
  recovery: { delaySeconds: number; reminderSeconds: number };
  /** The second factors' settings; `webauthn` undefined: passkeys are off. */
  mfa: {
    totpIssuer: string;
    webauthn?: { rpId: string; rpName: string; origins: string[]; anyLocalhostPort?: boolean };
    /** How long a browser trusted at a second step skips it after the password; 0: browsers are never trusted. */
    trustedBrowserDays: number;
  };
  /** Sign-in with identity providers: the app URLs it may return to (the first by default), and how long a flow may take. */
  identity: { appUrls: string[]; flowTtlMs: number; /** The providers admins may use too. */ adminProviders: string[] };
  /** Signing in with a mailed link or code: the kinds that may, whether the first link makes a user, how long a mail works, the page that takes its link. */
  emailSignIn: { kinds: AccountKind[]; signUp: boolean; ttlSeconds: number; urlBase: Record<AccountKind, string> };
  /** This service as an OpenID provider: whether it is on, and the apps the deployment declares (OPENID_CLIENTS), which the console shows and never changes. */
  apps: { enabled: boolean; declared: DeclaredApp[] };
}

/**
 * The apps told when a session they hold ends (OpenID back-channel logout). An app that asked to be
 * told is watched from the moment its first token opens its session; whatever ends that session (the
 * owner, an admin, a password change, a reset, a disable, a deletion, the cap per account) tells the
 * app once, in the background and retried, whichever replica ended it.
 */
export interface AppLogouts {
  /** The app holding `sessionId` is told when it ends, by the `sid` its ID tokens carry. */
  watch(kind: AccountKind, accountId: string, sessionId: string, app: { appId: string; sid: string }): Promise<void>;
  /** These sessions of the account ended (or every one): each app that held one is told, once. */
  ended(kind: AccountKind, accountId: string, sessionIds: string[] | 'all'): Promise<void>;
  /** The app's own act ended its session (it revoked its token, it logged out, its token was used twice): it is not told. */
  forget(kind: AccountKind, accountId: string, sessionId: string): Promise<void>;
}

/** What every feature's use cases may ask for. */
export interface SharedDeps {
  policy: AuthPolicy;
  logger: Logger;
  /** Security records in the spec's exact shape (no service field). */
  audit: Logger;
  accounts: Record<AccountKind, Accounts>;
  sessions: Sessions;
  /** Whether a session ended, from the replica's memory (the revocation feed). */
  revocations: RevocationCheck;
  ceremonies: Ceremonies;
  rateLimits: RateLimits;
  outbox: EventOutbox;
  activity: ActivityLog;
  hasher: PasswordHasher;
  passwordScreen: PasswordScreen;
  tokens: TokenSigner;
  locks: Locks;
  metrics: AuthMetrics;
  /** The stores of stores.ts: an account's factors, sign-ins in progress, failed-login budget, linked identities and pending factor removal. */
  factors: Factors;
  /** The second-factor methods, as the rules here read them (factors/registry.ts). */
  factorMethods: FactorMethods;
  flows: SignInFlows;
  loginAttempts: LoginAttempts;
  identities: Identities;
  recoveries: FactorRecoveries;
  /** Browsers trusted to skip the second step after the password. */
  trustedBrowsers: TrustedBrowsers;
  /** The apps to tell when their sessions end. */
  appLogouts: AppLogouts;
  /** The bot check of the routes where abuse starts (off unless BOT_CHECK). */
  botCheck: BotCheck;
  /** What people allowed the apps of other parties (this service as an OpenID provider). */
  appConsents: AppConsents;
}

/** What a person allowed an app of another party on the consent page: its scopes, and when. */
export interface AppConsent {
  appId: string;
  appName: string;
  scopes: string[];
  at: Date;
}

/**
 * The consents people gave apps of other parties, kept until taken back (or a year unused): a later
 * sign-in to the app that asks no more than was allowed is not asked again.
 */
export interface AppConsents {
  /** What the account allowed the app (undefined: nothing yet). */
  find(kind: AccountKind, accountId: string, appId: string): Promise<AppConsent | undefined>;
  /** Adds these scopes to what the account allowed the app. */
  allow(kind: AccountKind, accountId: string, app: { id: string; name: string }, scopes: string[]): Promise<void>;
  list(kind: AccountKind, accountId: string): Promise<AppConsent[]>;
  /** Forgets what the account allowed the app, or every app. */
  forget(kind: AccountKind, accountId: string, appId?: string): Promise<void>;
}

/** What a client needs before a route with a bot check: nothing (off), a challenge to solve (ALTCHA), or the widget to show (its site key). */
export type BotChallenge = { kind: 'off' } | { kind: 'altcha'; challenge: unknown } | { kind: 'turnstile' | 'hcaptcha'; siteKey: string; script: string };

/** The bot check (security/bot-checks.ts): a challenge for a client, and whether a client's answer passes. */
export interface BotCheck {
  readonly kind: BotChallenge['kind'];
  challenge(): Promise<BotChallenge>;
  /** Whether the answer passes: a solved ALTCHA challenge (once; a used or expired one does not) or a widget's token the provider vouches for. Throws when the provider cannot be asked. */
  passes(answer: string, ip: string): Promise<boolean>;
}

/** The part of the ports a use case of shared/ works with: its signature says which. */
export type Needs<K extends keyof SharedDeps> = Pick<SharedDeps, K>;
