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

/**
 * One second factor an account holds, whatever its method. The store keeps what the method gives it
 * and knows no method: a secret it seals, a counter a use moves on, single-use codes it hashes, and
 * details in the clear. What each is for is the method's (domain/factors/<method>.ts).
 */
export interface Factor {
  /** The method's own name for a factor an account holds once (an authenticator, a set of codes); else an id unique in the whole service (a passkey's credential id). */
  id: string;
  method: SecondFactor;
  kind: AccountKind;
  accountId: string;
  /** What the person calls it (a passkey's name); none: the method's description. */
  name?: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** False while an enrolment waits for its first proof (an authenticator's first code). */
  confirmed: boolean;
  /**
   * Added while the account's address was unproven, whose first proof has come since: it no longer
   * signs in by itself, and still answers a second step (shared/mailbox.ts); used as one, it is kept.
   */
  suspended?: boolean;
  /** What proofs are checked against (an authenticator's seed): in the clear here, sealed at rest. */
  secret?: string;
  /** What each use moves on: a time step, a signature counter (-1: no use yet). */
  counter: number;
  /** How many of its single-use codes are left (kept as keyed hashes; 0: it has none). */
  codesLeft: number;
  /** What the method keeps in the clear (a passkey's public key and transports). */
  details: Readonly<Record<string, unknown>>;
}

/** Which factor: its method and its id. */
export type FactorRef = Pick<Factor, 'method' | 'id'>;

/** A factor as a method adds it. */
export interface NewFactor {
  id: string;
  method: SecondFactor;
  name?: string;
  confirmed: boolean;
  secret?: string;
  counter?: number;
  /** Single-use codes, as presented codes will be compared (the store keeps their keyed hashes). */
  codes?: string[];
  details?: Record<string, unknown>;
}

/** Second factors at rest, one list per account: seeds sealed, codes hashed, every single-use rule one conditional write. */
export interface Factors {
  /** The account's factors, oldest first. */
  list(kind: AccountKind, accountId: string): Promise<Factor[]>;
  /** A factor by its service-wide id (a passkey presented alone names nothing but its credential). */
  find(method: SecondFactor, id: string): Promise<Factor | null>;
  /**
   * Adds a factor; `exists` when the id is taken. `replace`: `unconfirmed` restarts an enrolment never
   * confirmed (never a live factor); `any` replaces the factor whole (a new set of codes).
   */
  add(kind: AccountKind, accountId: string, factor: NewFactor, replace?: 'unconfirmed' | 'any'): Promise<'added' | 'exists'>;
  /** Makes a factor waiting for its first proof live, that proof's counter taken; false when none waits. */
  confirm(kind: AccountKind, accountId: string, factor: FactorRef, counter: number): Promise<boolean>;
  /**
   * A use of a live factor: the counter moves to `counter`, `strictly` only past the last (a time step
   * accepted once); `keep` lifts a suspension. False when the factor is gone or, strictly, the step was used.
   */
  use(kind: AccountKind, accountId: string, factor: FactorRef, counter: number, options?: { strictly?: boolean; keep?: boolean }): Promise<boolean>;
  /** Spends one single-use code: the count left, `used` when it was spent already, undefined when it is none of the factor's. */
  spend(kind: AccountKind, accountId: string, factor: FactorRef, code: string): Promise<number | 'used' | undefined>;
  remove(kind: AccountKind, accountId: string, factor: FactorRef): Promise<boolean>;
  /** Suspends the account's factors of these methods that are not yet; answers those it suspended. */
  suspend(kind: AccountKind, accountId: string, methods: readonly SecondFactor[]): Promise<Factor[]>;
  /** Removes every factor of the account; answers those it removed. */
  removeAll(kind: AccountKind, accountId: string): Promise<Factor[]>;
}

/** One factor an account holds, as every list of factors names it (GET …/factors `items`). */
export interface FactorEntry {
  /** Its id: a passkey's credential id, or the method's name for a one-per-account factor. */
  id: string;
  method: SecondFactor;
  /** What the person calls it: the passkey's name, else the method's description. */
  label: string;
  createdAt: string | null;
  lastUsedAt: string | null;
  /** False while an enrolment waits for its first proof (an authenticator's first code). */
  confirmed: boolean;
  /** `way-in`: a factor the person uses from day to day; `backup`: for when those are lost. */
  role: 'way-in' | 'backup';
  /** What is left of a factor that is used up one use at a time (recovery codes). */
  remaining?: number;
  /** Added while the address was unproven: it signs in by itself again once used as a second step. */
  suspended?: true;
}

/**
 * What the rules below the features know of the second-factor methods: the factors/ registry, handed
 * in at the composition root, so that what a mailbox may remove, an account's last way in and its
 * notices read every method, a new one included, without naming any.
 */
export interface FactorMethods {
  /** The account's factors as every list names them, method by method in the registry's order. */
  entries(factors: readonly Factor[]): FactorEntry[];
  /** Whether the account holds a live factor of its own, not only a backup: what recovery codes stand in for. */
  hasOwnFactor(factors: readonly Factor[]): boolean;
  /** What the method's factors are to the account: used day to day, or a backup for when those are lost. */
  role(method: SecondFactor): FactorEntry['role'] | undefined;
  /** Whether a factor of the method signs in by itself (a passkey): a way in as well as a second step. */
  signsInAlone(method: SecondFactor): boolean;
  /** The factor's line in a notice: what it is, its name and when it was added, never a secret. */
  describe(entry: FactorEntry): string;
}

/** How a login's answer names the methods an account may use (`factors`), in the order offered. */
export type SecondFactor = 'totp' | 'passkey' | 'recovery_code';

export type FlowPurpose = 'second_step' | 'passkey' | 'provider' | 'email';

/** What the person has proven so far: their password, who they are at a provider, or their mailbox (an emailed link or code). */
export type Proven = 'password' | `provider:${string}` | 'email';

/**
 * What they may do next: a second factor (`email_code`: the code mailed for an admin's second step),
 * a passkey's answer, the provider's callback, or the link or code of an email sign-in (`email_sign_in`).
 */
export type NextStep = SecondFactor | 'email_code' | 'provider_callback' | 'email_sign_in';

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
  /** An email sign-in's address, as it was asked for (normalised). */
  email?: string;
  /** An email sign-in for an address no account has, where the deployment lets the first link make one. */
  signUp?: true;
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
  open(flow: NewSignInFlow, options?: { mailCode?: boolean; key?: { id: string; secret: string } }): Promise<{ id: string; token: string; code?: string; expiresAt: Date }>;
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
  /**
   * The mail of an email sign-in (`flowId`: its id, never its secret): binds the flow to the account
   * it signs in (or to a sign-up) and draws its link and code, whose hashes alone are kept. Undefined
   * when the flow is gone (used, expired) or was armed already.
   */
  arm(flowId: string, owner: { accountId: string; credentialEpoch: number } | { signUp: true }): Promise<MailedSignIn | undefined>;
  /**
   * An email sign-in's link, with the flow token of the browser that asked (its flow cookie): taken
   * when both hold; `other_browser` (and left as it is) when the link holds and the browser is another.
   */
  takeLink(link: string, browserFlow: string | undefined): Promise<TakenFlow>;
  /**
   * An email sign-in's code, with the flow's token (the device that asked): one attempt counted
   * first, against the flow and against the address's wrong codes (the same for an address no
   * account has), then the code checked; a right one takes the flow.
   */
  enterCode(token: string, code: string): Promise<AttemptResult>;
}

/** A browser its owner trusted at a second step: for its life, the password alone signs in from it. */
export interface TrustedBrowser {
  id: string;
  createdAt: Date;
  expiresAt: Date;
  ip?: string;
  userAgent?: string;
}

/**
 * Browsers trusted to skip the second step after the password ("trust this browser for 30 days"),
 * per account: each a secret whose hash alone is kept, good only under the credentials it was
 * trusted under (a password change, a reset, an undo or a disable ends them all).
 */
export interface TrustedBrowsers {
  /** Trusts a browser; answers the token its cookie keeps (`<id>.<secret>`). An account keeps its newest few. */
  add(kind: AccountKind, accountId: string, credentialEpoch: number, seen: { ip?: string; userAgent?: string }): Promise<string>;
  /** Whether `token` is one of the account's live trusted browsers under `credentialEpoch`. */
  holds(kind: AccountKind, accountId: string, credentialEpoch: number, token: string): Promise<boolean>;
  /** The account's live trusted browsers under `credentialEpoch`, newest first. */
  list(kind: AccountKind, accountId: string, credentialEpoch: number): Promise<TrustedBrowser[]>;
  /** Forgets one; false when the account has no such browser. */
  remove(kind: AccountKind, accountId: string, id: string): Promise<boolean>;
  /** Forgets every one of the account (its sessions all ended: a reset of its factors, a new password, a disable). */
  removeAll(kind: AccountKind, accountId: string): Promise<void>;
}

/** What an email sign-in's mail carries: a link (`<flow id>.<secret>`) and a code, each good once, until `expiresAt`. */
export interface MailedSignIn {
  link: string;
  code: string;
  expiresAt: Date;
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
