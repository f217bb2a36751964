// Auth's Prometheus metrics: the domain's counters (AuthMetrics) and the bcrypt queue.
import { Counter, Gauge, Histogram, LATENCY_BUCKETS, type Registry } from '@acct/shared';
import type { AuthMetrics } from './domain/shared/ports';
import type { BcryptPasswordHasher } from './security/password-hasher';

export function authMetrics(registry: Registry): AuthMetrics {
  const registers = [registry];
  const logins = new Counter({ name: 'auth_logins_total', help: 'Login attempts by account kind and outcome', labelNames: ['kind', 'outcome'], registers });
  const refreshes = new Counter({ name: 'auth_refreshes_total', help: 'Refreshes by account kind and outcome (rotated, grace, reused, invalid, missing)', labelNames: ['kind', 'outcome'], registers });
  const limited = new Counter({ name: 'auth_rate_limit_refusals_total', help: 'Requests refused by a rate limit, by limiter', labelNames: ['limiter'], registers });
  const otp = new Counter({ name: 'auth_otp_challenges_total', help: 'One-time code challenges by outcome (issued, verified, wrong_code, invalid_challenge)', labelNames: ['outcome'], registers });
  return {
    login: (kind, outcome) => logins.inc({ kind, outcome }),
    refresh: (kind, outcome) => refreshes.inc({ kind, outcome }),
    rateLimited: (limiter) => limited.inc({ limiter }),
    otp: (outcome) => otp.inc({ outcome }),
  };
}

/** The hasher's queue: how many hashes wait for a slot, and how long they waited. */
export function bcryptMetrics(registry: Registry, hasher: BcryptPasswordHasher): void {
  new Gauge({
    name: 'auth_bcrypt_queue_length',
    help: 'bcrypt hashes and compares waiting for a slot',
    registers: [registry],
    collect() {
      this.set(hasher.waiting);
    },
  });
  const wait = new Histogram({ name: 'auth_bcrypt_wait_seconds', help: 'Time a bcrypt hash or compare waited for a slot', buckets: LATENCY_BUCKETS, registers: [registry] });
  hasher.onWait = (seconds) => wait.observe(seconds);
}
