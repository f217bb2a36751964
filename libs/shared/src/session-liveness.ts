// Whether the session an access token names is still alive, as every guard asks it: a pure rule
// over a `RevocationCheck` (the revocation feed in production, @acct/shared/redis), so that a
// domain's guard needs no store driver.
import type { AccessClaims } from './access-token';
import { errors } from './errors';

/** What a request path asks: `true` when the session ended. Synchronous while the feed is fresh. */
export interface RevocationCheck {
  isRevoked(sessionId: string): boolean | Promise<boolean>;
}

/** Refuses the token of a session that ended (401 `session_revoked`); a 503 when that cannot be known now. */
export async function assertSessionLive(revocations: RevocationCheck, claims: AccessClaims): Promise<void> {
  let revoked: boolean;
  try {
    revoked = await revocations.isRevoked(claims.sid);
  } catch (err) {
    throw errors.unavailable(err);
  }
  if (revoked) throw errors.sessionRevoked();
}
