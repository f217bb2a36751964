// Second-step challenges in Redis (`otp:{<id>}`): the challenge token's hash, the account (kind and
// id), an HMAC of the mailed code when one was mailed (never the code), the WebAuthn challenge when a
// passkey was offered, and an attempt counter. Each attempt is counted before any proof is checked,
// so no burst of parallel guesses gets more than the allowed number, whatever the proof (a mailed
// code, an authenticator code, a recovery code, a passkey); a correct one is single use. An account
// has one live challenge at a time (`otp-<kind>:<id>` names it): a new login ends the older one.
// Wrong proofs are also counted per account across challenges for an hour (`otp-fail:<kind>:<id>`):
// every `maxAttempts` of them take one guess off each new challenge (down to one) and double a wait
// before the next guess (from 1 s, at most 5 minutes), so logging in again buys no fresh guesses,
// and the owner with the right code always gets through after the wait.
import { createHmac, randomInt } from 'node:crypto';
import type { Redis } from '@acct/shared/redis';
import type { AccountKind } from '@acct/shared';
import { mintToken, parseToken, sameSecret, sha256 } from './opaque-token';
import { execOrThrow } from './redis-transaction';
import type { OpenChallenge, OtpChallenges, OtpVerifyResult } from '../domain/ports';

const ATTEMPT = `
local s = redis.call('HMGET', KEYS[1], 'tokenHash', 'accountId', 'codeMac', 'epoch', 'max', 'kind', 'webauthn')
if not s[1] or s[1] ~= ARGV[1] then return {'missing'} end
local n = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
if n > tonumber(s[5] or ARGV[2]) then
  redis.call('DEL', KEYS[1])
  return {'exhausted'}
end
return {'ok', s[2], s[3] or '', tostring(n), s[4] or '0', s[5] or ARGV[2], s[6] or 'admin', s[7] or ''}
`;


const ATTACH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'webauthn', ARGV[1])
return 1
`;

type ScriptClient = Redis & { otpAttempt(key: string, ...args: string[]): Promise<string[]>; otpAttach(key: string, challenge: string): Promise<number> };

export class RedisOtpChallenges implements OtpChallenges {
  private readonly redis: ScriptClient;

  constructor(
    redis: Redis,
    private readonly options: { secret: string; ttlMs: number; maxAttempts: number },
  ) {
    redis.defineCommand('otpAttempt', { numberOfKeys: 1, lua: ATTEMPT });
    redis.defineCommand('otpAttach', { numberOfKeys: 1, lua: ATTACH });
    this.redis = redis as ScriptClient;
  }

  /** Opens a challenge; answers the challenge token (for the client) and the code to mail, when one is. */
  async create(kind: AccountKind, accountId: string, ip: string, credentialEpoch: number, options: { mailCode: boolean }): Promise<{ challengeToken: string; code?: string; expiresAt: Date }> {
    const token = mintToken();
    const code = options.mailCode ? String(randomInt(0, 1_000_000)).padStart(6, '0') : undefined;
    const key = challengeKey(token.id);
    const failures = Number((await this.redis.get(failuresKey(kind, accountId))) ?? 0);
    const guesses = Math.max(1, this.options.maxAttempts - Math.floor(failures / this.options.maxAttempts));
    const fields: Record<string, string> = { tokenHash: sha256(token.value), kind, accountId, attempts: '0', max: String(guesses), ip, epoch: String(credentialEpoch) };
    if (code) fields.codeMac = this.mac(token.id, code);
    await execOrThrow(this.redis.multi().hset(key, fields).pexpire(key, this.options.ttlMs));
    // After the new challenge exists: of two logins at once, the one that swaps last ends the other.
    const previous = await this.redis.set(ownerKey(kind, accountId), token.id, 'PX', this.options.ttlMs, 'GET');
    if (previous && previous !== token.id) await this.redis.del(challengeKey(previous));
    return { challengeToken: token.value, code, expiresAt: new Date(Date.now() + this.options.ttlMs) };
  }

  async verify(challengeToken: string, prove: (challenge: OpenChallenge) => Promise<boolean>): Promise<OtpVerifyResult> {
    const token = parseToken(challengeToken);
    if (!token) return { outcome: 'invalid_challenge' };
    const key = challengeKey(token.id);
    const [owner, ownerKind] = await this.redis.hmget(key, 'accountId', 'kind');
    if (!owner) return { outcome: 'invalid_challenge' };
    const wait = await this.waitBeforeGuess(asKind(ownerKind), owner);
    if (wait > 0) return { outcome: 'throttled', retryAfterMs: wait };
    const [status, accountId, storedMac, attempts, epoch, max, storedKind, webauthn] = await this.redis.otpAttempt(key, sha256(token.value), String(this.options.maxAttempts));
    if (status !== 'ok') return { outcome: 'invalid_challenge' };
    const kind = asKind(storedKind);
    const challenge: OpenChallenge = {
      kind,
      accountId,
      isMailedCode: (code) => storedMac !== '' && sameSecret(this.mac(token.id, code), storedMac),
      webauthnChallenge: webauthn || undefined,
    };
    if (await prove(challenge)) {
      // Single use: of two parallel correct submissions only the one that deletes the key wins.
      if ((await this.redis.del(key)) !== 1) return { outcome: 'invalid_challenge' };
      await this.redis.del(failuresKey(kind, accountId), lastFailureKey(kind, accountId));
      return { outcome: 'verified', kind, accountId, credentialEpoch: Number(epoch) };
    }
    await execOrThrow(
      this.redis
        .multi()
        .incr(failuresKey(kind, accountId))
        .pexpire(failuresKey(kind, accountId), FAILURE_WINDOW_MS)
        .set(lastFailureKey(kind, accountId), String(Date.now()), 'PX', FAILURE_WINDOW_MS),
    );
    if (Number(attempts) >= Number(max)) await this.redis.del(key);
    return { outcome: 'wrong_code' };
  }

  async attachWebauthn(challengeToken: string, webauthnChallenge: string): Promise<{ kind: AccountKind; accountId: string } | undefined> {
    const token = parseToken(challengeToken);
    if (!token) return undefined;
    const key = challengeKey(token.id);
    const [tokenHash, accountId, kind] = await this.redis.hmget(key, 'tokenHash', 'accountId', 'kind');
    if (!tokenHash || !accountId || !sameSecret(tokenHash, sha256(token.value))) return undefined;
    // Only while the challenge is still there: a write to a key that just expired would bring it back without its lifetime.
    if ((await this.redis.otpAttach(key, webauthnChallenge)) !== 1) return undefined;
    return { kind: asKind(kind), accountId };
  }

  /** Ends a challenge whose code could not be sent. */
  async cancel(challengeToken: string): Promise<void> {
    const token = parseToken(challengeToken);
    if (token) await this.redis.del(challengeKey(token.id));
  }

  async cancelFor(kind: AccountKind, accountId: string): Promise<void> {
    const current = await this.redis.get(ownerKey(kind, accountId));
    if (current) await this.redis.del(challengeKey(current));
  }

  /** How long the account must wait before the next guess (0: none): from `maxAttempts` wrong codes on, 1 s doubling per `maxAttempts` more, at most 5 minutes. */
  private async waitBeforeGuess(kind: AccountKind, accountId: string): Promise<number> {
    const [failures, last] = await this.redis.mget(failuresKey(kind, accountId), lastFailureKey(kind, accountId));
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
// One hash tag for both: they are read, written and deleted together (one Redis Cluster slot).
const failuresKey = (kind: AccountKind, accountId: string) => `otp-fail:{${kind}:${accountId}}`;
const lastFailureKey = (kind: AccountKind, accountId: string) => `otp-fail-at:{${kind}:${accountId}}`;
const ownerKey = (kind: AccountKind, accountId: string) => `otp-${kind}:${accountId}`;
/** Challenges stored before users had them carry no kind: they are admins'. */
const asKind = (value: string | null | undefined): AccountKind => (value === 'user' ? 'user' : 'admin');
