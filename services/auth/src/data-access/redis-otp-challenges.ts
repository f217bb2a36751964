// Admin OTP challenges in Redis (`otp:{<id>}`): the challenge token's hash, the admin, an HMAC of the
// code (never the code), and an attempt counter. Each attempt is counted before the code is compared,
// so no burst of parallel guesses gets more than the allowed number; a correct code is single use.
// An admin has one live challenge at a time (`otp-admin:<id>` names it): a new login ends the older
// one, so logging in again does not add guesses.
import { createHmac, randomInt } from 'node:crypto';
import type { Redis } from 'ioredis';
import { mintToken, parseToken, sameSecret, sha256 } from './opaque-token';
import { execOrThrow } from './redis-transaction';
import type { OtpChallenges, OtpVerifyResult } from '../domain/ports';

const ATTEMPT = `
local s = redis.call('HMGET', KEYS[1], 'tokenHash', 'adminId', 'codeMac', 'epoch')
if not s[1] or s[1] ~= ARGV[1] then return {'missing'} end
local n = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
if n > tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  return {'exhausted'}
end
return {'ok', s[2], s[3], tostring(n), s[4] or '0'}
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
    await execOrThrow(
      this.redis
        .multi()
        .hset(key, { tokenHash: sha256(token.value), adminId, codeMac: this.mac(token.id, code), attempts: '0', ip, epoch: String(credentialEpoch) })
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
    const [status, adminId, storedMac, attempts, epoch] = await this.redis.otpAttempt(key, sha256(token.value), String(this.options.maxAttempts));
    if (status !== 'ok') return { outcome: 'invalid_challenge' };
    if (sameSecret(this.mac(token.id, code), storedMac)) {
      // Single use: of two parallel correct submissions only the one that deletes the key wins.
      return (await this.redis.del(key)) === 1 ? { outcome: 'verified', adminId, credentialEpoch: Number(epoch) } : { outcome: 'invalid_challenge' };
    }
    if (Number(attempts) >= this.options.maxAttempts) await this.redis.del(key);
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

  private mac(challengeId: string, code: string): string {
    return createHmac('sha256', this.options.secret).update(`${challengeId}:${code}`).digest('base64url');
  }
}

const challengeKey = (id: string) => `otp:{${id}}`;
const adminChallengeKey = (adminId: string) => `otp-admin:${adminId}`;
