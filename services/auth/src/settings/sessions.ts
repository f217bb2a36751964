// Sessions: how long an access token and a refresh session live, how many an account keeps, and the
// replicas a session write waits for.
import { REVOCATION_CLOCK_SKEW_MS, env } from '@acct/shared';
import { feature } from './feature';

const DAY = 86_400;

export const sessionSettings = feature({
  variables: {
    ACCESS_TOKEN_TTL_SECONDS: env.int(900, 30),
    REFRESH_IDLE_TTL_SECONDS: env.int(7 * DAY, 60),
    REFRESH_GRACE_SECONDS: env.int(10, 0),
    /** How long after a rotation the token rotated out may still be retried when its successor was never used (an answer lost), up to 3 times. */
    REFRESH_LATE_RETRY_SECONDS: env.int(300, 0),
    SESSION_MAX_AGE_USER_SECONDS: env.int(30 * DAY, 60),
    SESSION_MAX_AGE_ADMIN_SECONDS: env.int(12 * 3600, 60),
    /** Live sessions one account may have; opening one more ends its oldest. */
    SESSION_MAX_PER_ACCOUNT: env.int(10, 1),
    /** Replicas that must hold a session write before it is answered (Redis WAIT): 1 on Sentinel or Cluster, so a failover loses no session; 0 waits for none. */
    REDIS_WAIT_REPLICAS: env.int(0, 0),
    /** How long a session write waits for those replicas; past it the write is answered anyway. */
    REDIS_WAIT_TIMEOUT_MS: env.int(500, 1),
  },
  section: (v) => ({
    accessTokenTtlSeconds: v.ACCESS_TOKEN_TTL_SECONDS,
    /** The refresh cookie's Max-Age too. */
    idleTtlSeconds: v.REFRESH_IDLE_TTL_SECONDS,
    idleTtlMs: v.REFRESH_IDLE_TTL_SECONDS * 1000,
    graceMs: v.REFRESH_GRACE_SECONDS * 1000,
    lateRetryMs: v.REFRESH_LATE_RETRY_SECONDS * 1000,
    maxAgeMs: { user: v.SESSION_MAX_AGE_USER_SECONDS * 1000, admin: v.SESSION_MAX_AGE_ADMIN_SECONDS * 1000 },
    maxPerAccount: v.SESSION_MAX_PER_ACCOUNT,
    revocationRetentionMs: v.ACCESS_TOKEN_TTL_SECONDS * 1000 + REVOCATION_CLOCK_SKEW_MS,
    replicaAck: { replicas: v.REDIS_WAIT_REPLICAS, timeoutMs: v.REDIS_WAIT_TIMEOUT_MS },
  }),
  weakened: (s) => (s.accessTokenTtlSeconds > 3600 ? [`ACCESS_TOKEN_TTL_SECONDS=${s.accessTokenTtlSeconds}: over an hour, a leaked access token stays useful long`] : []),
  /** The access token's life, for the answers that name it. */
  policy: (s) => ({ accessTokenTtlSeconds: s.accessTokenTtlSeconds }),
});
