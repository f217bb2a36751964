// Passwords: bcrypt's cost and how much hashing a replica takes on at once, and the screen against
// commonly breached passwords.
import { z } from 'zod';
import { env } from '@acct/shared';
import { feature } from './feature';

export const passwordSettings = feature({
  variables: {
    /** At most 15: each step doubles a hash's time, and 16 takes seconds a login, on any CPU of today. */
    BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(12),
    /** bcrypt hashes at once per replica; 0 means one per core. */
    BCRYPT_CONCURRENCY: env.int(0, 0),
    /** Hashes and compares that may wait for a slot; one more is answered 503 with Retry-After. */
    BCRYPT_QUEUE_MAX: env.int(64, 1),
    /** How long one may wait for a slot; past it (under the gateway's UPSTREAM_TIMEOUT_MS) it is dropped with a 503. */
    BCRYPT_QUEUE_WAIT_MS: env.int(5_000, 10),
    /** Whether new passwords are screened against the bundled list of common ones: `auto` means on in production, off elsewhere. */
    BREACHED_PASSWORD_CHECK: z.enum(['auto', 'true', 'false']).default('auto'),
  },
  section: (v) => ({
    cost: v.BCRYPT_COST,
    concurrency: v.BCRYPT_CONCURRENCY || undefined,
    queue: { maxQueue: v.BCRYPT_QUEUE_MAX, maxWaitMs: v.BCRYPT_QUEUE_WAIT_MS },
    breachedCheck: v.BREACHED_PASSWORD_CHECK === 'auto' ? v.NODE_ENV === 'production' : v.BREACHED_PASSWORD_CHECK === 'true',
  }),
  weakened: (s) => [
    ...(s.cost < 10 ? [`BCRYPT_COST=${s.cost}: under 10, stolen hashes are cheap to guess`] : []),
    ...(!s.breachedCheck ? ['BREACHED_PASSWORD_CHECK=false: new passwords are not screened against commonly breached ones'] : []),
  ],
});
