// What the use cases need, injected by createApp (real stores in production and in tests alike).
import type { AccessClaims, AccountKind, Logger, Outbox } from '@acct/shared';
import type { AuthConfig } from '../config';
import type { AccountRepository } from '../data-access/account-repository';
import type { LoginAttemptStore } from '../data-access/login-attempt-store';
import type { ResetRequestQueue } from '../data-access/reset-request-queue';
import type { OtpChallengeStore } from '../data-access/otp-challenge-store';
import type { RateLimits } from '../data-access/rate-limits';
import type { RefreshSessionStore } from '../data-access/refresh-session-store';
import type { ResetTokenRepository } from '../data-access/reset-token-repository';
import type { AccessTokenIssuer } from './access-token-issuer';
import type { PasswordHasher } from './passwords';

export interface RequestContext {
  ip: string;
  requestId?: string;
  /** The verified caller, when the request carried a valid access token. */
  actor?: AccessClaims;
}

export interface AuthDomain {
  config: AuthConfig;
  logger: Logger;
  /** Security records in the spec's exact shape (no service field). */
  audit: Logger;
  accounts: Record<AccountKind, AccountRepository>;
  sessions: RefreshSessionStore;
  otp: OtpChallengeStore;
  resets: ResetTokenRepository;
  resetRequests: ResetRequestQueue;
  loginAttempts: LoginAttemptStore;
  outbox: Outbox;
  rateLimits: RateLimits;
  hasher: PasswordHasher;
  tokens: AccessTokenIssuer;
  /** Claims the one-time right to create the first admin; answers a release for when creation fails. */
  claimFirstAdmin(): Promise<(() => Promise<void>) | undefined>;
}
