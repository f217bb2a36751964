// Sign-ins in progress (domain/sign-in/flow.ts) in Redis, one hash each (`sign-in:{<id>}`): the
// purpose, the account kind (and id, once known), the credential epoch it opened under, what is
// proven and what is next, SHA-256 of its secret, an attempt counter with its ceiling, and what the
// purpose needs: an HMAC of a mailed code (never the code), the WebAuthn challenge handed out, a
// provider's PKCE verifier, nonce and return URL. A flow lives for its purpose's lifetime from its
// opening, and nothing extends it.
//
// Every use counts one attempt before anything is checked, so no burst of parallel guesses gets
// more than the allowed number, whatever the proof; a wrong secret counts none (it finds nothing). A
// second step has as many attempts as the account's guesses allow (wrong proofs are also counted per
// account across flows and routes, `RedisCodeGuesses`, so logging in again buys no fresh guesses),
// and only a correct proof deletes it; a correct code presented again opens nothing and counts as no
// wrong guess. A passkey or provider flow has one attempt: it is taken (deleted) by its first use, so
// a replayed answer or callback finds nothing; a provider flow presented with another browser's
// secret is left to the browser that holds it. An account has one open second step at a time
// (`sign-in-<kind>:<id>` names it): a new login ends the older one.
import { createHmac, randomInt } from 'node:crypto';
import type { Redis } from '@acct/shared/redis';
import type { AccountKind } from '@acct/shared';
import { mintToken, parseToken, sameSecret, sha256 } from './opaque-token';
import { execOrThrow } from './redis-transaction';
import { RedisCodeGuesses } from './redis-code-guesses';
import type { CodeGuesses } from '../domain/factors/ports';
import type { AttemptResult, FlowKey, FlowPurpose, NewSignInFlow, OpenChallenge, ProofVerdict, SignInFlow, SignInFlows, TakenFlow } from '../domain/shared/ports';

/** A second step's attempt: counted only with the flow's secret, refused past its ceiling; answers the whole flow. */
const ATTEMPT = `
local s = redis.call('HMGET', KEYS[1], 'secret', 'purpose', 'max')
if not s[1] or s[1] ~= ARGV[1] or s[2] ~= 'second_step' then return {'missing'} end
local n = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
if n > tonumber(s[3]) then return {'exhausted'} end
local all = redis.call('HGETALL', KEYS[1])
table.insert(all, 1, 'ok')
return all
`;

/** A single-use flow's one attempt: with its secret it is taken (deleted); with another, left as it is. */
const TAKE = `
local s = redis.call('HMGET', KEYS[1], 'secret', 'purpose')
if not s[1] or s[2] ~= ARGV[2] then return {'unknown'} end
local all = redis.call('HGETALL', KEYS[1])
if s[1] ~= ARGV[1] then
  table.insert(all, 1, 'other_browser')
  return all
end
redis.call('DEL', KEYS[1])
table.insert(all, 1, 'taken')
return all
`;

/** Stores a second step's WebAuthn challenge, only with its secret; answers the flow's owner. */
const ATTACH = `
local s = redis.call('HMGET', KEYS[1], 'secret', 'purpose', 'accountId', 'kind')
if not s[1] or s[1] ~= ARGV[1] or s[2] ~= 'second_step' or not s[3] then return {} end
redis.call('HSET', KEYS[1], 'webauthn', ARGV[2])
return {s[3], s[4] or ''}
`;

type ScriptClient = Redis & {
  flowAttempt(key: string, secretHash: string): Promise<string[]>;
  flowTake(key: string, secretHash: string, purpose: string): Promise<string[]>;
  flowAttach(key: string, secretHash: string, challenge: string): Promise<string[]>;
};

/** An identity flow's `state`: what a provider sends back, checked before it names a key. */
const STATE = /^[A-Za-z0-9_-]{20,128}$/;

export interface SignInFlowOptions {
  /** HMAC key of mailed codes (OTP_SECRET). */
  secret: string;
  /** Each purpose's lifetime. */
  ttlMs: Record<FlowPurpose, number>;
  /** A second step's attempts when the account has no recent wrong guesses (OTP_MAX_ATTEMPTS). */
  maxAttempts: number;
}

export class RedisSignInFlows implements SignInFlows {
  private readonly redis: ScriptClient;

  constructor(
    redis: Redis,
    private readonly options: SignInFlowOptions,
    private readonly guesses: CodeGuesses = new RedisCodeGuesses(redis, options),
  ) {
    redis.defineCommand('flowAttempt', { numberOfKeys: 1, lua: ATTEMPT });
    redis.defineCommand('flowTake', { numberOfKeys: 1, lua: TAKE });
    redis.defineCommand('flowAttach', { numberOfKeys: 1, lua: ATTACH });
    this.redis = redis as ScriptClient;
  }

  async open(flow: NewSignInFlow, options: { mailCode?: boolean; key?: { id: string; secret: string } } = {}): Promise<{ token: string; code?: string; expiresAt: Date }> {
    if (options.key && !STATE.test(options.key.id)) throw new Error('A flow id must be 20-128 base64url characters');
    const token = options.key ? { ...options.key, value: `${options.key.id}.${options.key.secret}` } : mintToken();
    const ttlMs = this.options.ttlMs[flow.purpose];
    const expiresAt = new Date(Date.now() + ttlMs);
    const secondStep = flow.purpose === 'second_step' && flow.accountId !== undefined ? flow.accountId : undefined;
    const max = secondStep !== undefined ? await this.guesses.guessesPerChallenge(flow.kind, secondStep) : 1;
    const code = options.mailCode ? String(randomInt(0, 1_000_000)).padStart(6, '0') : undefined;
    const fields: Record<string, string> = {
      purpose: flow.purpose,
      kind: flow.kind,
      secret: sha256(token.secret),
      attempts: '0',
      max: String(max),
      proven: JSON.stringify(flow.proven),
      next: JSON.stringify(flow.next),
      expiresAt: String(expiresAt.getTime()),
    };
    if (flow.accountId !== undefined) fields.accountId = flow.accountId;
    if (flow.credentialEpoch !== undefined) fields.epoch = String(flow.credentialEpoch);
    if (flow.ip !== undefined) fields.ip = flow.ip;
    if (flow.webauthnChallenge !== undefined) fields.webauthn = flow.webauthnChallenge;
    if (flow.provider !== undefined) fields.provider = JSON.stringify(flow.provider);
    if (code) fields.codeMac = this.mac(token.id, code);
    const key = flowKey(token.id);
    await execOrThrow(this.redis.multi().hset(key, fields).pexpire(key, ttlMs));
    if (secondStep !== undefined) {
      // After the new flow exists: of two logins at once, the one that swaps last ends the other.
      const previous = await this.redis.set(ownerKey(flow.kind, secondStep), token.id, 'PX', ttlMs, 'GET');
      if (previous && previous !== token.id) await this.redis.del(flowKey(previous));
    }
    return { token: token.value, code, expiresAt };
  }

  async attempt(challengeToken: string, prove: (challenge: OpenChallenge) => Promise<ProofVerdict>): Promise<AttemptResult> {
    const token = parseToken(challengeToken);
    if (!token) return { outcome: 'invalid_challenge' };
    const key = flowKey(token.id);
    const [owner, ownerKind, tried, max] = await this.redis.hmget(key, 'accountId', 'kind', 'attempts', 'max');
    // Spent: as gone as a used one, whatever the account's wait.
    if (!owner || Number(tried ?? 0) >= Number(max ?? this.options.maxAttempts)) return { outcome: 'invalid_challenge' };
    const wait = await this.guesses.waitBeforeGuess(asKind(ownerKind), owner);
    if (wait > 0) return { outcome: 'throttled', retryAfterMs: wait };
    const [status, ...pairs] = await this.redis.flowAttempt(key, sha256(token.secret));
    if (status !== 'ok') return { outcome: 'invalid_challenge' };
    const stored = fieldsOf(pairs);
    const flow = flowOf(stored);
    const challenge: OpenChallenge = {
      kind: flow.kind,
      accountId: stored.accountId,
      isMailedCode: (code) => stored.codeMac !== undefined && sameSecret(this.mac(token.id, code), stored.codeMac),
      webauthnChallenge: flow.webauthnChallenge,
    };
    const verdict = await prove(challenge);
    if (verdict === true) {
      // Single use: of two parallel correct submissions only the one that deletes the key wins.
      if ((await this.redis.del(key)) !== 1) return { outcome: 'invalid_challenge' };
      await this.guesses.succeeded(flow.kind, stored.accountId);
      return { outcome: 'verified', flow };
    }
    // A correct code again (its copy won, or it was used a moment ago): refused as a wrong one, but no guess.
    if (verdict === 'used') return { outcome: 'wrong_code' };
    await this.guesses.failed(flow.kind, stored.accountId);
    return { outcome: 'wrong_code' };
  }

  async take(purpose: Exclude<FlowPurpose, 'second_step'>, key: FlowKey): Promise<TakenFlow> {
    const address = 'token' in key ? parseToken(key.token) : STATE.test(key.id) ? key : undefined;
    if (!address) return { outcome: 'unknown' };
    const [outcome, ...pairs] = await this.redis.flowTake(flowKey(address.id), sha256(address.secret), purpose);
    if (outcome !== 'taken' && outcome !== 'other_browser') return { outcome: 'unknown' };
    return { outcome, flow: flowOf(fieldsOf(pairs)) };
  }

  async attachWebauthn(challengeToken: string, webauthnChallenge: string): Promise<{ kind: AccountKind; accountId: string } | undefined> {
    const token = parseToken(challengeToken);
    if (!token) return undefined;
    const key = flowKey(token.id);
    // Only while the flow is still there (one script): a write to a key that just expired would bring it back without its lifetime.
    const [accountId, kind] = await this.redis.flowAttach(key, sha256(token.secret), webauthnChallenge);
    return accountId ? { kind: asKind(kind), accountId } : undefined;
  }

  async ownerOf(challengeToken: string): Promise<{ kind: AccountKind; accountId: string; credentialEpoch?: number } | undefined> {
    const token = parseToken(challengeToken);
    if (!token) return undefined;
    const [secret, purpose, accountId, kind, epoch] = await this.redis.hmget(flowKey(token.id), 'secret', 'purpose', 'accountId', 'kind', 'epoch');
    if (!secret || !sameSecret(secret, sha256(token.secret)) || purpose !== 'second_step' || !accountId) return undefined;
    return { kind: asKind(kind), accountId, ...(epoch ? { credentialEpoch: Number(epoch) } : {}) };
  }

  /** Ends a flow whose code could not be sent. */
  async cancel(challengeToken: string): Promise<void> {
    const token = parseToken(challengeToken);
    if (token) await this.redis.del(flowKey(token.id));
  }

  async cancelFor(kind: AccountKind, accountId: string): Promise<void> {
    const current = await this.redis.get(ownerKey(kind, accountId));
    if (current) await this.redis.del(flowKey(current));
  }

  private mac(flowId: string, code: string): string {
    return createHmac('sha256', this.options.secret).update(`${flowId}:${code}`).digest('base64url');
  }
}

const flowKey = (id: string) => `sign-in:{${id}}`;
const ownerKey = (kind: AccountKind, accountId: string) => `sign-in-${kind}:${accountId}`;
const asKind = (value: string | null | undefined): AccountKind => (value === 'admin' ? 'admin' : 'user');

function fieldsOf(pairs: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) fields[pairs[i]] = pairs[i + 1];
  return fields;
}

function flowOf(stored: Record<string, string>): SignInFlow {
  return {
    purpose: stored.purpose as FlowPurpose,
    kind: asKind(stored.kind),
    ...(stored.accountId !== undefined ? { accountId: stored.accountId } : {}),
    ...(stored.epoch !== undefined ? { credentialEpoch: Number(stored.epoch) } : {}),
    proven: JSON.parse(stored.proven ?? '[]') as SignInFlow['proven'],
    next: JSON.parse(stored.next ?? '[]') as SignInFlow['next'],
    expiresAt: new Date(Number(stored.expiresAt)),
    attempts: Number(stored.attempts ?? 0),
    ...(stored.webauthn ? { webauthnChallenge: stored.webauthn } : {}),
    ...(stored.provider ? { provider: JSON.parse(stored.provider) as SignInFlow['provider'] } : {}),
  };
}
