// The sign-in's ports: the second-step challenge store and the failed-login budget.
import type { AccountKind } from '@acct/shared';
import type { OpenChallenge, ProofVerdict } from '../factors/ports';

export type OtpVerifyResult =
  | { outcome: 'verified'; kind: AccountKind; accountId: string; credentialEpoch: number }
  | { outcome: 'invalid_challenge' | 'wrong_code' }
  /** The account's wrong codes across challenges call for a wait before the next guess. */
  | { outcome: 'throttled'; retryAfterMs: number };

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
  otp: OtpChallenges;
  loginAttempts: LoginAttempts;
}
