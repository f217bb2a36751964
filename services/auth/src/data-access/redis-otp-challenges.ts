// Admin OTP challenges in Redis (`otp:{<id>}`): the challenge token's hash, the admin, an HMAC of the
// code (never the code), and an attempt counter. Each attempt is counted before the code is compared,
// so no burst of parallel guesses gets more than the allowed number; a correct code is single use.
// An admin has one live challenge at a time (`otp-admin:<id>` names it): a new login ends the older
// one. Wrong codes are also counted per admin across challenges for an hour (`otp-fail:<id>`): every
// `maxAttempts` of them take one guess off each new challenge (down to one) and double a wait before
// the next guess (from 1 s, at most 5 minutes), so logging in again buys no fresh guesses, and the
// owner with the right code always gets through after the wait.
import { createHmac, randomInt } from 'node:crypto';
import type { Redis } from 'ioredis';
import { mintToken, parseToken, sameSecret, sha256 } from './opaque-token';
import { execOrThrow } from './redis-transaction';
import type { OtpChallenges, OtpVerifyResult } from '../domain/ports';

const ATTEMPT = `
local s = redis.call('HMGET', KEYS[1], 'tokenHash', 'adminId', 'codeMac', 'epoch', 'max')
if not s[1] or s[1] ~= ARGV[1] then return {'missing'} end
local n = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
if n > tonumber(s[5] or ARGV[2]) then
  redis.call('DEL', KEYS[1])
  return {'exhausted'}
end
return {'ok', s[2], s[3], tostring(n), s[4] or '0', s[5] or ARGV[2]}
`;


type ScriptClient = Redis & { otpAttempt(key: string, ...args: string[]): Promise<string[]> };

export class RedisOtpChallenges implements OtpChallenges {
  private readonly redis: ScriptClient;

  constructor(
    redis: Redis,
    private readonly options: { secret: string; ttlMs: number; maxAttempts: number },
  ) {
    redis.defineCommand('otpAttempt', { numberOfKeys: 1, lua: ATTEMPT });
    this.redis = redis as ScriptClient;
  }

  /** Opens a challenge; answers the challenge token (for the client) and the code (for the mail). */
  async create(adminId: string, ip: string, credentialEpoch: number): Promise<{ challengeToken: string; code: string; expiresAt: Date }> {
    const token = mintToken();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const key = challengeKey(token.id);
    const failures = Number((await this.redis.get(failuresKey(adminId))) ?? 0);
    const guesses = Math.max(1, this.options.maxAttempts - Math.floor(failures / this.options.maxAttempts));
    await execOrThrow(
      this.redis
        .multi()
        .hset(key, { tokenHash: sha256(token.value), adminId, codeMac: this.mac(token.id, code), attempts: '0', max: String(guesses), ip, epoch: String(credentialEpoch) })
        .pexpire(key, this.options.ttlMs),
    );
    // After the new challenge exists: of two logins at once, the one that swaps last ends the other.
    const previous = await this.redis.set(adminChallengeKey(adminId), token.id, 'PX', this.options.ttlMs, 'GET');
    if (previous && previous !== token.id) await this.redis.del(challengeKey(previous));
    return { challengeToken: token.value, code, expiresAt: new Date(Date.now() + this.options.ttlMs) };
  }

  async verify(challengeToken: string, code: string): Promise<OtpVerifyResult> {
    const token = parseToken(challengeToken);
    if (!token) return { outcome: 'invalid_challenge' };
    const key = challengeKey(token.id);
    const owner = await this.redis.hget(key, 'adminId');
    if (!owner) return { outcome: 'invalid_challenge' };
    const wait = await this.waitBeforeGuess(owner);
    if (wait > 0) return { outcome: 'throttled', retryAfterMs: wait };
    const [status, adminId, storedMac, attempts, epoch, max] = await this.redis.otpAttempt(key, sha256(token.value), String(this.options.maxAttempts));
    if (status !== 'ok') return { outcome: 'invalid_challenge' };
    if (sameSecret(this.mac(token.id, code), storedMac)) {
      // Single use: of two parallel correct submissions only the one that deletes the key wins.
      if ((await this.redis.del(key)) !== 1) return { outcome: 'invalid_challenge' };
      await this.redis.del(failuresKey(adminId), lastFailureKey(adminId));
      return { outcome: 'verified', adminId, credentialEpoch: Number(epoch) };
    }
    await execOrThrow(
      this.redis.multi().incr(failuresKey(adminId)).pexpire(failuresKey(adminId), FAILURE_WINDOW_MS).set(lastFailureKey(adminId), String(Date.now()), 'PX', FAILURE_WINDOW_MS),
    );
    if (Number(attempts) >= Number(max)) await this.redis.del(key);
    return { outcome: 'wrong_code' };
  }

  /** Ends a challenge whose code could not be sent. */
  async cancel(challengeToken: string): Promise<void> {
    const token = parseToken(challengeToken);
    if (token) await this.redis.del(challengeKey(token.id));
  }

  async cancelFor(adminId: string): Promise<void> {
    const current = await this.redis.get(adminChallengeKey(adminId));
    if (current) await this.redis.del(challengeKey(current));
  }

  /** How long the admin must wait before the next guess (0: none): from `maxAttempts` wrong codes on, 1 s doubling per `maxAttempts` more, at most 5 minutes. */
  private async waitBeforeGuess(adminId: string): Promise<number> {
    const [failures, last] = await this.redis.mget(failuresKey(adminId), lastFailureKey(adminId));
    const rounds = Math.floor(Number(failures ?? 0) / this.options.maxAttempts);
    if (rounds < 1 || !last) return 0;
    const wait = Math.min(MAX_WAIT_MS, 1000 * 2 ** (rounds - 1));
    return Math.max(0, Number(last) + wait - Date.now());
  }

  private mac(challengeId: string, code: string): string {
    return createHmac('sha256', this.options.secret).update(`${challengeId}:${code}`).digest('base64url');
  }
}

const FAILURE_WINDOW_MS = 3_600_000;
const MAX_WAIT_MS = 300_000;

const challengeKey = (id: string) => `otp:{${id}}`;
const failuresKey = (adminId: string) => `otp-fail:${adminId}`;
const lastFailureKey = (adminId: string) => `otp-fail-at:${adminId}`;
const adminChallengeKey = (adminId: string) => `otp-admin:${adminId}`;
