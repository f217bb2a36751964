// Second-step challenges in Redis (`otp:{<id>}`): the challenge token's hash, the account (kind and
// id), an HMAC of the mailed code when one was mailed (never the code), the WebAuthn challenge when a
// passkey was offered, and an attempt counter. Each attempt is counted before any proof is checked,
// so no burst of parallel guesses gets more than the allowed number, whatever the proof (a mailed
// code, an authenticator code, a recovery code, a passkey); a correct one is single use. An account
// has one live challenge at a time (`otp-<kind>:<id>` names it): a new login ends the older one.
// Wrong proofs are also counted per account across challenges and routes (`RedisCodeGuesses`), so
// logging in again buys no fresh guesses. A correct code presented again (copies sent at once, a
// recovery code just used) opens nothing and counts as no wrong guess. Nothing but a correct proof
// deletes a challenge: a copy that finds the attempts spent cannot end the one that succeeds.
import { createHmac, randomInt } from 'node:crypto';
import type { Redis } from '@acct/shared/redis';
import type { AccountKind } from '@acct/shared';
import { mintToken, parseToken, sameSecret, sha256 } from './opaque-token';
import { execOrThrow } from './redis-transaction';
import { RedisCodeGuesses } from './redis-code-guesses';
import type { CodeGuesses, OpenChallenge, OtpChallenges, OtpVerifyResult, ProofVerdict } from '../domain/ports';

const ATTEMPT = `
local s = redis.call('HMGET', KEYS[1], 'tokenHash', 'accountId', 'codeMac', 'epoch', 'max', 'kind', 'webauthn')
if not s[1] or s[1] ~= ARGV[1] then return {'missing'} end
local n = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
if n > tonumber(s[5] or ARGV[2]) then return {'exhausted'} end
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
    private readonly guesses: CodeGuesses = new RedisCodeGuesses(redis, options),
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
    const guesses = await this.guesses.guessesPerChallenge(kind, accountId);
    const fields: Record<string, string> = { tokenHash: sha256(token.value), kind, accountId, attempts: '0', max: String(guesses), ip, epoch: String(credentialEpoch) };
    if (code) fields.codeMac = this.mac(token.id, code);
    await execOrThrow(this.redis.multi().hset(key, fields).pexpire(key, this.options.ttlMs));
    // After the new challenge exists: of two logins at once, the one that swaps last ends the other.
    const previous = await this.redis.set(ownerKey(kind, accountId), token.id, 'PX', this.options.ttlMs, 'GET');
    if (previous && previous !== token.id) await this.redis.del(challengeKey(previous));
    return { challengeToken: token.value, code, expiresAt: new Date(Date.now() + this.options.ttlMs) };
  }

  async verify(challengeToken: string, prove: (challenge: OpenChallenge) => Promise<ProofVerdict>): Promise<OtpVerifyResult> {
    const token = parseToken(challengeToken);
    if (!token) return { outcome: 'invalid_challenge' };
    const key = challengeKey(token.id);
    const [owner, ownerKind, tried, max] = await this.redis.hmget(key, 'accountId', 'kind', 'attempts', 'max');
    // Spent: as gone as a used one, whatever the account's wait.
    if (!owner || Number(tried ?? 0) >= Number(max ?? this.options.maxAttempts)) return { outcome: 'invalid_challenge' };
    const wait = await this.guesses.waitBeforeGuess(asKind(ownerKind), owner);
    if (wait > 0) return { outcome: 'throttled', retryAfterMs: wait };
    const [status, accountId, storedMac, , epoch, , storedKind, webauthn] = await this.redis.otpAttempt(key, sha256(token.value), String(this.options.maxAttempts));
    if (status !== 'ok') return { outcome: 'invalid_challenge' };
    const kind = asKind(storedKind);
    const challenge: OpenChallenge = {
      kind,
      accountId,
      isMailedCode: (code) => storedMac !== '' && sameSecret(this.mac(token.id, code), storedMac),
      webauthnChallenge: webauthn || undefined,
    };
    const verdict = await prove(challenge);
    if (verdict === true) {
      // Single use: of two parallel correct submissions only the one that deletes the key wins.
      if ((await this.redis.del(key)) !== 1) return { outcome: 'invalid_challenge' };
      await this.guesses.succeeded(kind, accountId);
      return { outcome: 'verified', kind, accountId, credentialEpoch: Number(epoch) };
    }
    // A correct code again (its copy won, or it was used a moment ago): refused as a wrong one, but no guess.
    if (verdict === 'used') return { outcome: 'wrong_code' };
    await this.guesses.failed(kind, accountId);
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

  private mac(challengeId: string, code: string): string {
    return createHmac('sha256', this.options.secret).update(`${challengeId}:${code}`).digest('base64url');
  }
}

const challengeKey = (id: string) => `otp:{${id}}`;
const ownerKey = (kind: AccountKind, accountId: string) => `otp-${kind}:${accountId}`;
/** Challenges stored before users had them carry no kind: they are admins'. */
const asKind = (value: string | null | undefined): AccountKind => (value === 'user' ? 'user' : 'admin');
