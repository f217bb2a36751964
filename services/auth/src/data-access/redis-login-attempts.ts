// Failed-login counters in Redis, two per account: one per (account, client address), which slows a
// guesser down without touching the owner on another address, and one account-wide ceiling that
// only a distributed attack reaches. An attempt is reserved in both, atomically, before the password
// is compared, so guesses sent at once cannot outrun the limit; a success gives it back and clears
// the counts and makes the address known to the account (then the account-wide ceiling does not hold
// it back), a failure keeps it. The keys share a hash tag, so the scripts run on Redis Cluster.
import type { Redis } from '@acct/shared/redis';
import type { AccountKind } from '@acct/shared';
import type { LoginAttempts, Reservation } from '../domain/shared/ports';
import { execOrThrow } from './redis-transaction';

const RESERVE = `
local limits = {tonumber(ARGV[1]), tonumber(ARGV[2])}
-- An address the account recently signed in from is not held back by the account-wide ceiling.
local known = redis.call('SISMEMBER', KEYS[3], ARGV[4]) == 1
for i = 1, 2 do
  if not (i == 2 and known) and tonumber(redis.call('GET', KEYS[i]) or '0') >= limits[i] then
    local ttl = redis.call('PTTL', KEYS[i])
    if ttl < 0 then ttl = tonumber(ARGV[3]) end
    return {i, ttl}
  end
end
for i = 1, 2 do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
end
return {0, 0}
`;

const RELEASE = `
for i = 1, 2 do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 1
`;

export interface LoginAttemptPolicy {
  perAccountAndIp: number;
  perAccount: number;
  windowMs: number;
  /** How long an address stays known to an account after a correct password from it (default 30 days). */
  knownAddressMs?: number;
}

const KNOWN_ADDRESS_MS = 30 * 86_400_000;


type ScriptClient = Redis & {
  loginAttemptReserve(k1: string, k2: string, k3: string, ...args: string[]): Promise<[number, number]>;
  loginAttemptRelease(k1: string, k2: string): Promise<number>;
};

export class RedisLoginAttempts implements LoginAttempts {
  private readonly redis: ScriptClient;

  constructor(
    redis: Redis,
    private readonly policy: LoginAttemptPolicy,
  ) {
    redis.defineCommand('loginAttemptReserve', { numberOfKeys: 3, lua: RESERVE });
    redis.defineCommand('loginAttemptRelease', { numberOfKeys: 2, lua: RELEASE });
    this.redis = redis as ScriptClient;
  }

  /** Takes one attempt from both budgets, or none when either is spent. `email` is normalised. */
  async reserve(kind: AccountKind, email: string, budget: string): Promise<Reservation> {
    const [ipKey, accountKey] = keys(kind, email, budget);
    const { perAccountAndIp, perAccount, windowMs } = this.policy;
    const [spent, ttl] = await this.redis.loginAttemptReserve(ipKey, accountKey, knownKey(kind, email), String(perAccountAndIp), String(perAccount), String(windowMs), budget);
    if (spent === 0) return { allowed: true };
    return { allowed: false, scope: spent === 1 ? 'account_ip' : 'account', retryAfterMs: ttl };
  }

  /** Gives a reserved attempt back (the attempt never got to a verdict). */
  async release(kind: AccountKind, email: string, budget: string): Promise<void> {
    await this.redis.loginAttemptRelease(...keys(kind, email, budget));
  }

  async isKnown(kind: AccountKind, email: string, budget: string): Promise<boolean> {
    return (await this.redis.sismember(knownKey(kind, email), budget)) === 1;
  }

  /** A correct password: the account's consecutive failures, and this address's, start over; the address is now known. */
  async succeed(kind: AccountKind, email: string, budget: string): Promise<void> {
    const known = knownKey(kind, email);
    await execOrThrow(
      this.redis
        .multi()
        .del(...keys(kind, email, budget))
        .sadd(known, budget)
        .pexpire(known, this.policy.knownAddressMs ?? KNOWN_ADDRESS_MS),
    );
  }
}

/** The account-wide counter; its hash tag puts every key of the account in one slot. */
const accountKey = (kind: AccountKind, email: string) => `lf:{${kind}:${email}}`;

function keys(kind: AccountKind, email: string, budget: string): [string, string] {
  const account = accountKey(kind, email);
  return [`${account}:ip:${budget}`, account];
}

/** The address budgets the account signed in from lately. */
const knownKey = (kind: AccountKind, email: string) => `${accountKey(kind, email)}:known`;
