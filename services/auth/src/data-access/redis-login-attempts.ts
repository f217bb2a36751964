// Failed-login counters in Redis, two per account: one per (account, client address), which slows a
// guesser down without touching the owner on another address, and one account-wide ceiling that
// only a distributed attack reaches. An attempt is reserved in both, atomically, before the password
// is compared, so guesses sent at once cannot outrun the limit; a success gives it back and clears
// the counts, a failure keeps it. Both keys share a hash tag, so the scripts run on Redis Cluster.
import type { Redis } from 'ioredis';
import type { AccountKind } from '@acct/shared';
import type { LoginAttempts, Reservation } from '../domain/ports';

const RESERVE = `
local limits = {tonumber(ARGV[1]), tonumber(ARGV[2])}
for i = 1, 2 do
  if tonumber(redis.call('GET', KEYS[i]) or '0') >= limits[i] then
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
}


type ScriptClient = Redis & {
  loginAttemptReserve(k1: string, k2: string, ...args: string[]): Promise<[number, number]>;
  loginAttemptRelease(k1: string, k2: string): Promise<number>;
};

export class RedisLoginAttempts implements LoginAttempts {
  private readonly redis: ScriptClient;

  constructor(
    redis: Redis,
    private readonly policy: LoginAttemptPolicy,
  ) {
    redis.defineCommand('loginAttemptReserve', { numberOfKeys: 2, lua: RESERVE });
    redis.defineCommand('loginAttemptRelease', { numberOfKeys: 2, lua: RELEASE });
    this.redis = redis as ScriptClient;
  }

  /** Takes one attempt from both budgets, or none when either is spent. `email` is normalised. */
  async reserve(kind: AccountKind, email: string, ip: string): Promise<Reservation> {
    const [ipKey, accountKey] = keys(kind, email, ip);
    const { perAccountAndIp, perAccount, windowMs } = this.policy;
    const [spent, ttl] = await this.redis.loginAttemptReserve(ipKey, accountKey, String(perAccountAndIp), String(perAccount), String(windowMs));
    if (spent === 0) return { allowed: true };
    return { allowed: false, scope: spent === 1 ? 'account_ip' : 'account', retryAfterMs: ttl };
  }

  /** Gives a reserved attempt back (the attempt never got to a verdict). */
  async release(kind: AccountKind, email: string, ip: string): Promise<void> {
    await this.redis.loginAttemptRelease(...keys(kind, email, ip));
  }

  /** A correct password: the account's consecutive failures, and this address's, start over. */
  async succeed(kind: AccountKind, email: string, ip: string): Promise<void> {
    await this.redis.del(...keys(kind, email, ip));
  }
}

function keys(kind: AccountKind, email: string, ip: string): [string, string] {
  const account = `lf:{${kind}:${email}}`;
  return [`${account}:ip:${ip}`, account];
}
