// What the use cases work with, as interfaces: the stores in data-access/ and the signer in
// security/ implement them, the composition root (server.ts) wires them once. Each use
// case's signature names the few it uses (`Needs<'accounts' | 'hasher'>`), nothing else.
import type { Readable } from 'node:stream';
import type { AccessClaims, AccountKind, DesktopReleaseRecord, EventOutbox, Logger } from '@acct/shared';
import type { RevocationCheck } from '@acct/shared';
import type { Account, AccountChanges, NewAccount } from './shared/account';

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
}

export type NewActivity = Omit<ActivityEntry, 'id' | 'at'>;

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
export type NewSession = SessionOwner & { credentialEpoch: number; ip?: string; userAgent?: string };

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

export type OtpVerifyResult =
  | { outcome: 'verified'; kind: AccountKind; accountId: string; credentialEpoch: number }
  | { outcome: 'invalid_challenge' | 'wrong_code' }
  /** The account's wrong codes across challenges call for a wait before the next guess. */
  | { outcome: 'throttled'; retryAfterMs: number };

/** An open second-step challenge, as the proof presented against it sees it (its attempt already counted). */
export interface OpenChallenge {
  kind: AccountKind;
  accountId: string;
  /** Whether `code` is the one mailed for this challenge (false when none was mailed). */
  isMailedCode(code: string): boolean;
  /** The WebAuthn challenge handed out for this second step, if one was. */
  webauthnChallenge?: string;
}

/** What a presented second-factor proof is: correct, wrong (a guess), or a correct one already used (a copy, not a guess). */
export type ProofVerdict = boolean | 'used';

/** Wrong second-factor codes per account, across challenges and routes: one budget and one backoff wherever a code is checked. */
export interface CodeGuesses {
  /** How long the account must wait before its next guess (0: none). */
  waitBeforeGuess(kind: AccountKind, accountId: string): Promise<number>;
  /** How many guesses a new challenge of the account gets, after its recent wrong ones. */
  guessesPerChallenge(kind: AccountKind, accountId: string): Promise<number>;
  failed(kind: AccountKind, accountId: string): Promise<void>;
  succeeded(kind: AccountKind, accountId: string): Promise<void>;
}

export interface OtpChallenges {
  /**
   * Opens the account's one challenge, under the credential epoch the password was checked against;
   * `mailCode` makes a 6-digit code to mail (an admin with no factor of their own).
   */
  create(kind: AccountKind, accountId: string, ip: string, credentialEpoch: number, options: { mailCode: boolean }): Promise<{ challengeToken: string; code?: string; expiresAt: Date }>;
  /**
   * Counts one attempt against the challenge, then asks `prove` whether the presented proof holds: a
   * true answer uses the challenge up, a false one counts as a wrong code, `used` as neither.
   */
  verify(challengeToken: string, prove: (challenge: OpenChallenge) => Promise<ProofVerdict>): Promise<OtpVerifyResult>;
  /** The challenge's owner while it is open (no attempt counted), with a WebAuthn challenge stored for it. */
  attachWebauthn(challengeToken: string, webauthnChallenge: string): Promise<{ kind: AccountKind; accountId: string } | undefined>;
  cancel(challengeToken: string): Promise<void>;
  /** Ends the account's pending challenge, if any (a reset or a disable). */
  cancelFor(kind: AccountKind, accountId: string): Promise<void>;
}

export interface Passkey {
  /** The credential id, base64url. */
  id: string;
  name: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

export type NewPasskey = Omit<Passkey, 'createdAt' | 'lastUsedAt'>;

export interface FactorSet {
  /** The authenticator, confirmed or still pending its first code; its seed in the clear. */
  totp: { secret: string; confirmed: boolean; lastStep: number; createdAt: Date } | null;
  passkeys: Passkey[];
  recoveryCodesLeft: number;
  /** When the current set of recovery codes was made (null: none). */
  recoveryCodesMadeAt: Date | null;
}

/** Authenticator-app codes (RFC 6238: 6 digits, 30 s, SHA-1, a step of skew either way), a library's work kept outside the domain. */
export interface TotpCodes {
  /** A new random secret (160 bits), base32. */
  newSecret(): string;
  /** The time step `code` belongs to when it is a code of `secret` within the accepted skew of `now`. */
  stepOf(secret: string, code: string, now?: number): number | undefined;
  /** The otpauth:// URI an authenticator app reads. */
  uri(secret: string, issuer: string, label: string): string;
}

/** Images of text to scan (the otpauth URI), as a PNG data URL. */
export interface QrCodes {
  dataUrl(text: string): Promise<string>;
}

/** What the browser is given for a WebAuthn ceremony (JSON, passed through as it is). */
export type PasskeyOptions = { readonly challenge: string } & Readonly<Record<string, unknown>>;

/** The relying party a ceremony is checked against. */
export interface RelyingParty {
  rpId: string;
  rpName: string;
  origins: string[];
}

/** The WebAuthn ceremonies (registration and authentication), a library's work kept outside the domain. */
export interface PasskeyCeremonies {
  registrationOptions(rp: RelyingParty, user: { name: string; displayName: string; handle: string }, exclude: Array<Pick<Passkey, 'id' | 'transports'>>): Promise<PasskeyOptions>;
  /** The new credential when the browser's answer verifies against `challenge` (user verified); undefined otherwise. */
  verifyRegistration(rp: RelyingParty, answer: unknown, challenge: string): Promise<Omit<NewPasskey, 'name'> | undefined>;
  /** Options asking for a passkey: any of the relying party's, or only `allow`; with `challenge` (base64url) when the caller chose it. */
  authenticationOptions(rp: RelyingParty, options: { challenge?: string; allow?: Array<Pick<Passkey, 'id' | 'transports'>> }): Promise<PasskeyOptions>;
  /** The passkey's new counter when the answer verifies against `challenge` and its stored key; undefined otherwise (a counter that went back included). */
  verifyAuthentication(rp: RelyingParty, answer: unknown, challenge: string, passkey: Pick<Passkey, 'id' | 'publicKey' | 'counter' | 'transports'>): Promise<{ counter: number } | undefined>;
}

/** Second factors at rest: seeds sealed, recovery codes hashed, by the store. */
export interface Factors {
  of(kind: AccountKind, accountId: string): Promise<FactorSet>;
  /** Starts (or restarts) an authenticator enrolment; `exists` when a confirmed one is live. */
  startTotp(kind: AccountKind, accountId: string, secret: string): Promise<'started' | 'exists'>;
  /** Makes the pending authenticator live, its first code's step used; false when none is pending. */
  confirmTotp(kind: AccountKind, accountId: string, step: number): Promise<boolean>;
  /** Uses a time step of the live authenticator; false when it (or a later one) was used already. */
  useTotpStep(kind: AccountKind, accountId: string, step: number): Promise<boolean>;
  removeTotp(kind: AccountKind, accountId: string): Promise<boolean>;
  addPasskey(kind: AccountKind, accountId: string, passkey: NewPasskey): Promise<'added' | 'exists'>;
  findPasskey(credentialId: string): Promise<(Passkey & { kind: AccountKind; accountId: string }) | null>;
  usePasskey(credentialId: string, counter: number): Promise<void>;
  removePasskey(kind: AccountKind, accountId: string, credentialId: string): Promise<boolean>;
  /** Replaces the account's recovery codes (the old set ends). */
  replaceRecoveryCodes(kind: AccountKind, accountId: string, codes: string[]): Promise<void>;
  /** Uses one recovery code: the count left, `used` when it is one of the set already used, undefined when it is none of the set. */
  useRecoveryCode(kind: AccountKind, accountId: string, code: string): Promise<number | 'used' | undefined>;
  removeRecoveryCodes(kind: AccountKind, accountId: string): Promise<void>;
  /** Removes every factor and the recovery codes; answers how many factors went. */
  removeAll(kind: AccountKind, accountId: string): Promise<number>;
}

/** Short-lived, single-use state of the WebAuthn ceremonies and the sessions' recent proofs (Redis). */
export interface Ceremonies {
  /** Stores a WebAuthn challenge under a new token (sign-in) or the session (registration). */
  begin(purpose: 'login' | 'register', key: string | undefined, state: CeremonyState): Promise<string>;
  /** Takes the state back once: a second call answers undefined. */
  finish(purpose: 'login' | 'register', key: string): Promise<CeremonyState | undefined>;
  /** The session just proved the password or a second factor, under the account's credential epoch. */
  markProof(sessionId: string, credentialEpoch: number): Promise<void>;
  /** The credential epoch of the session's proof of the last STEP_UP_SECONDS; undefined without one. */
  recentProof(sessionId: string): Promise<number | undefined>;
}

export interface CeremonyState {
  challenge: string;
  kind: AccountKind;
  accountId?: string;
  /** The credential epoch a registration started under (shared/credential-epoch.ts). */
  credentialEpoch?: number;
}

export interface ResetTokens {
  store(token: string, kind: AccountKind, accountId: string, expiresAt: Date, credentialEpoch: number): Promise<void>;
  find(token: string, kind: AccountKind): Promise<string | undefined>;
  /** Uses the token up: whose it was, and the credential epoch it was issued under (undefined: issued before epochs were kept). */
  consume(token: string, kind: AccountKind): Promise<{ accountId: string; credentialEpoch?: number } | undefined>;
  retireAll(kind: AccountKind, accountId: string): Promise<void>;
}

export type LinkPurpose = 'verify_email' | 'change_email' | 'undo_email_change';

/** A used link: whose, the address it was issued for, when, and under which credential epoch. */
export interface UsedLink {
  kind: AccountKind;
  accountId: string;
  email?: string;
  createdAt: Date;
  credentialEpoch?: number;
}

export interface NewLink {
  purpose: LinkPurpose;
  kind: AccountKind;
  accountId: string;
  email?: string;
  expiresAt: Date;
  credentialEpoch?: number;
}

/**
 * Mailed links that prove an address: hashed, single use, expiring; one live per account and
 * purpose, except the undo links of address changes, each of which lives its whole week.
 */
export interface AccountLinks {
  /** Stores a link; a new verify or change link retires the older one of its purpose. */
  store(token: string, link: NewLink): Promise<void>;
  /** Uses the link up; undefined when it is unknown, used, replaced by a newer one, or expired. */
  consume(purpose: LinkPurpose, token: string): Promise<UsedLink | undefined>;
  /** Retires the account's unused links of the purpose; with `after`, only those issued after that moment. */
  retireAll(purpose: LinkPurpose | 'all', kind: AccountKind, accountId: string, options?: { after?: Date }): Promise<void>;
  /** The account whose live undo link would bring it back to `email`: the address is held for it meanwhile. */
  heldFor(kind: AccountKind, email: string): Promise<string | undefined>;
}

export interface ResetRequest {
  /** What the queued request asks for: a reset link (the default), or a new verification link. */
  purpose?: 'reset' | 'verify';
  kind: AccountKind;
  /** Normalised. */
  email: string;
  ip: string;
  requestId?: string;
  /** False when the address's mail budget was spent: the request is answered alike and sends nothing. */
  mail: boolean;
}

export type ClaimedResetRequest = ResetRequest & { id: string; attempts: number };

export interface ResetRequests {
  enqueue(request: ResetRequest): Promise<void>;
  claim(): Promise<ClaimedResetRequest | undefined>;
  remove(id: string): Promise<void>;
}

export type Reservation = { allowed: true } | { allowed: false; scope: 'account_ip' | 'account'; retryAfterMs: number };

/** Failed-login budgets per account and address budget (`RequestContext.budget`). */
export interface LoginAttempts {
  /**
   * Takes one attempt from the address's budget for the account and from the account-wide one; an
   * address the account recently signed in from is not held back by the account-wide ceiling.
   */
  reserve(kind: AccountKind, email: string, budget: string): Promise<Reservation>;
  release(kind: AccountKind, email: string, budget: string): Promise<void>;
  /** A correct password: the counts start over, and the address becomes one the account knows. */
  succeed(kind: AccountKind, email: string, budget: string): Promise<void>;
  /** Whether a correct password came from this address budget lately. */
  isKnown(kind: AccountKind, email: string, budget: string): Promise<boolean>;
}

export type LimiterName = 'loginIp' | 'registerIp' | 'forgotIp' | 'forgotEmailIp' | 'forgotEmail' | 'resetIp' | 'otpIp' | 'emailLinkIp';
export type LimitAnswer = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface RateLimits {
  /** Spends one point of the limit for `key`; answers whether there was one. */
  consume(name: LimiterName, key: string): Promise<LimitAnswer>;
}

/**
 * Password hashing, bounded: under overload a hash or compare is refused (a 503 with Retry-After)
 * rather than queued past its use; `signal` tells that the client went away.
 */
export interface PasswordHasher {
  hash(password: string, signal?: AbortSignal): Promise<string>;
  verify(password: string, hash: string, signal?: AbortSignal): Promise<boolean>;
  /** Whether a hash was made at a lower cost than today's and should be remade at the next login. */
  needsUpgrade(hash: string): boolean;
  /** Spends one compare's time, so that an unknown email costs what a known one does. */
  burn(password: string, signal?: AbortSignal): Promise<void>;
}

/** New passwords are screened against a bundled list of commonly breached ones (when the check is on). */
export interface PasswordScreen {
  isCommon(password: string): boolean;
}

export interface TokenSigner {
  /** A signed access token; it expires after the configured lifetime, or at `notAfterMs` if sooner. */
  sign(claims: AccessClaims, notAfterMs?: number): string;
}

export interface Avatars {
  save(userId: string, content: Buffer, contentType: string): Promise<string>;
  open(fileId: string): Readable;
  remove(fileId: string): Promise<void>;
}

export interface DesktopExport {
  devices: Array<{ id: string; platform: string; appVersion: string; lastSyncAt: string | null }>;
  sync: { items: number; cursor: string };
}

/** A desktop release as admins manage it (desktop's own record). */
export type DesktopRelease = DesktopReleaseRecord;

/**
 * The desktop service, asked with the caller's own access token (desktop checks it as it checks any):
 * a user's part of their export, and the releases admins manage. Desktop's refusals (a 4xx) come back
 * as they are; no answer in time is a 503.
 */
export interface DesktopData {
  exportOf(authorization: string, requestId?: string): Promise<DesktopExport>;
  releases(authorization: string, platform: string | undefined, requestId?: string): Promise<DesktopRelease[]>;
  publishRelease(authorization: string, release: unknown, requestId?: string): Promise<DesktopRelease>;
  withdrawRelease(authorization: string, platform: string, version: string, requestId?: string): Promise<void>;
}

/** What a provider's verified ID token says of the person. */
export interface IdentityClaims {
  subject: string;
  email?: string;
  /** True only when the provider says the address is verified. */
  emailVerified: boolean;
  /** Why it is not, naming the claim that was missing or not `true` (for the audit record). */
  unverified?: string;
  name?: string;
}

export interface ProviderSummary {
  id: string;
  name: string;
  /** False while its discovery has not succeeded: its routes answer 503. */
  available: boolean;
}

/** The configured OpenID Connect providers (security/identity-providers.ts). */
export interface IdentityProviders {
  list(): ProviderSummary[];
  has(id: string): boolean;
  /** Where to send the browser, to come back to the kind's callback; 404 for an unknown provider, 503 for one not discovered yet. */
  authorizationUrl(id: string, kind: AccountKind, checks: { state: string; nonce: string; codeVerifier: string }): Promise<string>;
  /** The redirect's parameters (at the kind's callback) exchanged for the verified claims; throws `IdentityRefused` when they do not hold. */
  exchange(id: string, kind: AccountKind, query: URLSearchParams, checks: { state: string; nonce: string; codeVerifier: string }): Promise<IdentityClaims>;
}

/** An account's identity at a provider: one per provider and account, and a provider's subject belongs to one account. */
export interface LinkedIdentity {
  provider: string;
  subject: string;
  kind: AccountKind;
  accountId: string;
  email?: string;
  linkedAt: Date;
}

export interface Identities {
  find(provider: string, subject: string): Promise<LinkedIdentity | null>;
  listFor(kind: AccountKind, accountId: string): Promise<LinkedIdentity[]>;
  /** `taken`: the subject is another account's, or the account has an identity at this provider already. */
  add(identity: LinkedIdentity): Promise<'added' | 'taken'>;
  remove(kind: AccountKind, accountId: string, provider: string): Promise<boolean>;
  removeAll(kind: AccountKind, accountId: string): Promise<number>;
}

/** A started sign-in (or link) with a provider, kept server-side until its callback, once. */
export interface IdentityFlow {
  provider: string;
  /** Whose sign-in (or link) it is; flows stored before admins could sign in are the users'. */
  kind?: AccountKind;
  purpose: 'sign_in' | 'link';
  /** The signed-in account a link is for. */
  accountId?: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
  /** SHA-256 of the secret in the browser's flow cookie: the callback must come from the browser that started. */
  binding: string;
  /** A link's: the account's credential epoch when it started (shared/credential-epoch.ts). */
  credentialEpoch?: number;
}

/** A callback's flow: taken (used up), or left to the browser that started it when `binding` is another's. */
export type TakenFlow = { outcome: 'unknown' } | { outcome: 'taken' | 'other_browser'; flow: IdentityFlow };

export interface IdentityFlows {
  begin(state: string, flow: IdentityFlow): Promise<void>;
  /** The flow of `state`, taken once and only with its binding (the SHA-256 of the browser's flow cookie): a replayed callback finds nothing. */
  take(state: string, binding: string): Promise<TakenFlow>;
}

/** Mutual exclusion across replicas, for a check and a write that must not interleave. */
export interface Locks {
  /** Runs `work` while holding the named lock; `busy` when another holder keeps it past the wait (the work never ran). */
  run<T>(name: string, work: () => Promise<T>): Promise<T | 'busy'>;
}

export interface FirstAdminClaim {
  /** Claims the one-time right to create the first admin; answers a release for when creation fails. */
  claim(): Promise<(() => Promise<void>) | undefined>;
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
  /** The second factors' settings; `webauthn` undefined: passkeys are off. */
  mfa: { totpIssuer: string; webauthn?: { rpId: string; rpName: string; origins: string[] } };
  /** Sign-in with identity providers: the app URLs it may return to (the first by default), and how long a flow may take. */
  identity: { appUrls: string[]; flowTtlMs: number; /** The providers admins may use too. */ adminProviders: string[] };
}

export interface AuthDeps {
  policy: AuthPolicy;
  logger: Logger;
  /** Security records in the spec's exact shape (no service field). */
  audit: Logger;
  accounts: Record<AccountKind, Accounts>;
  sessions: Sessions;
  /** Whether a session ended, from the replica's memory (the revocation feed). */
  revocations: RevocationCheck;
  otp: OtpChallenges;
  codeGuesses: CodeGuesses;
  factors: Factors;
  totp: TotpCodes;
  qrCodes: QrCodes;
  passkeys: PasskeyCeremonies;
  ceremonies: Ceremonies;
  resets: ResetTokens;
  links: AccountLinks;
  resetRequests: ResetRequests;
  loginAttempts: LoginAttempts;
  rateLimits: RateLimits;
  outbox: EventOutbox;
  activity: ActivityLog;
  hasher: PasswordHasher;
  passwordScreen: PasswordScreen;
  tokens: TokenSigner;
  avatars: Avatars;
  firstAdmin: FirstAdminClaim;
  locks: Locks;
  desktop: DesktopData;
  identityProviders: IdentityProviders;
  identities: Identities;
  identityFlows: IdentityFlows;
  metrics: AuthMetrics;
}

/** The part of the ports a use case works with: its signature says which. */
export type Needs<K extends keyof AuthDeps> = Pick<AuthDeps, K>;
