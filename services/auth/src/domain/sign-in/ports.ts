// The sign-in's ports: the flows of sign-ins in progress and the failed-login budget.
import type { AccountKind } from '@acct/shared';
import type { OpenChallenge, ProofVerdict } from '../factors/ports';
import type { NewSignInFlow, SignInFlow, FlowPurpose } from './flow';

export type { FlowPurpose, NewSignInFlow, NextStep, Proven, ProviderLeg, SignInFlow } from './flow';

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

export interface SignInDeps {
  flows: SignInFlows;
  loginAttempts: LoginAttempts;
}
