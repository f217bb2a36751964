// The stores every feature reads or writes, and the records they hold: an account's second factors,
// its sign-ins in progress and failed-login budget, its linked identities, and a pending removal of
// its factors. Declared here, below the features, so that a feature works with them through its own
// ports and shared/ alone; the feature that owns each (factors/, sign-in/, identity/, email/)
// re-exports it from its ports.
import type { AccountKind } from '@acct/shared';

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
  /**
   * Added while the account's address was unproven, whose first proof has come since: it no longer
   * signs in by itself, and still answers a second step (shared/mailbox.ts); used as one, it is kept.
   */
  suspended?: boolean;
}

export type NewPasskey = Omit<Passkey, 'createdAt' | 'lastUsedAt' | 'suspended'>;

export interface FactorSet {
  /** The authenticator, confirmed or still pending its first code; its seed in the clear. */
  totp: { secret: string; confirmed: boolean; lastStep: number; createdAt: Date } | null;
  passkeys: Passkey[];
  recoveryCodesLeft: number;
  /** When the current set of recovery codes was made (null: none). */
  recoveryCodesMadeAt: Date | null;
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
  /** Moves the counter on; `keep` lifts a suspension (the passkey answered a second step after the password). */
  usePasskey(credentialId: string, counter: number, options?: { keep?: boolean }): Promise<void>;
  /** Suspends every passkey of the account (it signs in by itself no more); answers those it suspended. */
  suspendPasskeys(kind: AccountKind, accountId: string): Promise<Passkey[]>;
  removePasskey(kind: AccountKind, accountId: string, credentialId: string): Promise<boolean>;
  /** Replaces the account's recovery codes (the old set ends). */
  replaceRecoveryCodes(kind: AccountKind, accountId: string, codes: string[]): Promise<void>;
  /** Uses one recovery code: the count left, `used` when it is one of the set already used, undefined when it is none of the set. */
  useRecoveryCode(kind: AccountKind, accountId: string, code: string): Promise<number | 'used' | undefined>;
  removeRecoveryCodes(kind: AccountKind, accountId: string): Promise<void>;
  /** Removes every factor and the recovery codes; answers how many factors went. */
  removeAll(kind: AccountKind, accountId: string): Promise<number>;
}

/** How a login's answer names the methods an account may use (`factors`), in the order offered. */
export type SecondFactor = 'totp' | 'passkey' | 'recovery_code';

export type FlowPurpose = 'second_step' | 'passkey' | 'provider';

/** What the person has proven so far: their password, or who they are at a provider. */
export type Proven = 'password' | `provider:${string}`;

/** What they may do next: a second factor (`email_code`: the mailed one), a passkey's answer, the provider's callback. */
export type NextStep = SecondFactor | 'email_code' | 'provider_callback';

/** An identity provider's leg of a flow, kept server-side between the start and the callback. */
export interface ProviderLeg {
  id: string;
  /** A sign-in (or sign-up), or a link to the signed-in account (`accountId`). */
  intent: 'sign_in' | 'link';
  nonce: string;
  codeVerifier: string;
  /** The allow-listed app URL the browser goes back to. */
  returnTo: string;
}

export interface SignInFlow {
  purpose: FlowPurpose;
  kind: AccountKind;
  /** Whose flow, once known: after a password, or for a link; a passkey or provider sign-in learns it at its end. */
  accountId?: string;
  /** The account's credential epoch when the flow opened (shared/credential-epoch.ts): a change since ends it. */
  credentialEpoch?: number;
  proven: Proven[];
  next: NextStep[];
  expiresAt: Date;
  /** Attempts counted so far (this one included, for a flow being used). */
  attempts: number;
  /** The WebAuthn challenge handed out for it, when a passkey may answer. */
  webauthnChallenge?: string;
  provider?: ProviderLeg;
}

export type NewSignInFlow = Omit<SignInFlow, 'expiresAt' | 'attempts'> & {
  /** The address that opened it (kept for the record). */
  ip?: string;
};

export type AttemptResult =
  | { outcome: 'verified'; flow: SignInFlow }
  | { outcome: 'invalid_challenge' | 'wrong_code' }
  /** The account's wrong codes across flows call for a wait before the next guess. */
  | { outcome: 'throttled'; retryAfterMs: number };

/** A single-use flow taken back: used up, unknown (or of another purpose), or left to the browser whose secret it holds. */
export type TakenFlow = { outcome: 'unknown' } | { outcome: 'taken' | 'other_browser'; flow: SignInFlow };

/** How a flow is addressed: one opaque token (`<id>.<secret>`), or an id and its secret apart (an identity flow's `state` and flow cookie). */
export type FlowKey = { token: string } | { id: string; secret: string };

/**
 * Sign-ins in progress (flow.ts), one record each, kept for their purpose's lifetime and never
 * extended. Every flow is found by its id and proven by a secret whose SHA-256 alone is stored; every
 * use of a flow counts one attempt before anything is checked, and a flow has as many as its
 * purpose allows (a second step: the account's guesses; the others: one, they are taken).
 */
export interface SignInFlows {
  /**
   * Opens a flow. A second step ends the account's older one and, with `mailCode`, draws the 6-digit
   * code to mail; `key` gives the id and secret (an identity flow's), else a token is minted.
   */
  open(flow: NewSignInFlow, options?: { mailCode?: boolean; key?: { id: string; secret: string } }): Promise<{ token: string; code?: string; expiresAt: Date }>;
  /**
   * A second step: counts one attempt, then asks `prove` whether the presented proof holds. A true
   * answer uses the flow up, a false one counts as a wrong code, `used` as neither.
   */
  attempt(token: string, prove: (challenge: OpenChallenge) => Promise<ProofVerdict>): Promise<AttemptResult>;
  /** A single-use flow of `purpose`, taken once and only with its secret. */
  take(purpose: Exclude<FlowPurpose, 'second_step'>, key: FlowKey): Promise<TakenFlow>;
  /** The second step's owner while it is open (no attempt counted), with a WebAuthn challenge stored for it. */
  attachWebauthn(token: string, webauthnChallenge: string): Promise<{ kind: AccountKind; accountId: string } | undefined>;
  /** The owner of an open second step and the credential epoch it opened under, with no attempt counted (what a recovery request from it needs). */
  ownerOf(token: string): Promise<{ kind: AccountKind; accountId: string; credentialEpoch?: number } | undefined>;
  cancel(token: string): Promise<void>;
  /** Ends the account's open second step, if any (a reset, a disable, a deletion). */
  cancelFor(kind: AccountKind, accountId: string): Promise<void>;
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

/** A removal of an account's second factors that its mailbox asked for, waiting out its delay (shared/mailbox.ts). */
export interface PendingRecovery {
  kind: AccountKind;
  accountId: string;
  requestedAt: Date;
  /** When the factors go, unless a sign-in with one of them or the owner's console cancels it first. */
  dueAt: Date;
  /** When the owner is told again that it is coming. */
  remindAt: Date;
}

/** Pending factor recoveries, at most one per account; each step is claimed once, whichever replica runs it. */
export interface FactorRecoveries {
  /** Schedules one; an account's pending one stays as it is (asking again does not move its date). */
  schedule(recovery: PendingRecovery): Promise<{ scheduled: boolean; recovery: PendingRecovery }>;
  pendingFor(kind: AccountKind, accountId: string): Promise<PendingRecovery | undefined>;
  /** Cancels the account's pending one; false when there was none. */
  cancel(kind: AccountKind, accountId: string): Promise<boolean>;
  /** Takes one pending recovery whose reminder is due and marks it reminded. */
  claimReminder(now: Date): Promise<PendingRecovery | undefined>;
  /** Takes one pending recovery that is due and ends it (it is run by whoever took it). */
  claimDue(now: Date): Promise<PendingRecovery | undefined>;
}
