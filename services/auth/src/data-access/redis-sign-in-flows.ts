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
//
// An email sign-in is opened when it is asked for, before anyone looks the address up, and armed
// later by the mail's worker (`arm`: the account, an HMAC of the code and SHA-256 of the link's
// secret). Its code is one of the flow's attempts, like a second step's, with the wrong ones counted
// per address (`address:<SHA-256 of kind and address>`), so an address no account has is answered
// exactly as one that has; its link is taken once, and only with the secret of the browser that
// asked (its flow cookie); with another browser's it is left as it is.
import { createHmac, randomInt } from 'node:crypto';
import type { Redis } from '@acct/shared/redis';
import type { AccountKind } from '@acct/shared';
import { mintToken, parseToken, sameSecret, sha256 } from './opaque-token';
import { execOrThrow } from './redis-transaction';
import { RedisCodeGuesses } from './redis-code-guesses';
import type { CodeGuesses } from '../domain/factors/ports';
import type { AttemptResult, FlowKey, FlowPurpose, MailedSignIn, NewSignInFlow, OpenChallenge, ProofVerdict, SignInFlow, SignInFlows, TakenFlow } from '../domain/shared/ports';

/** A second step's (or an email sign-in code's) attempt: counted only with the flow's secret, refused past its ceiling; answers the whole flow. */
const ATTEMPT = `
local s = redis.call('HMGET', KEYS[1], 'secret', 'purpose', 'max')
if not s[1] or s[1] ~= ARGV[1] or s[2] ~= ARGV[2] then return {'missing'} end
local n = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
if n > tonumber(s[3]) then return {'exhausted'} end
local all = redis.call('HGETALL', KEYS[1])
table.insert(all, 1, 'ok')
return all
`;

/** The end of a take, once the flow is found: with the browser's secret (`presented`) it is taken (deleted); with another, left as it is. Answers the flow. */
const takenIfTheBrowsers = (stored: string, presented: string) => `
local all = redis.call('HGETALL', KEYS[1])
if ${stored} ~= ${presented} then
  table.insert(all, 1, 'other_browser')
  return all
end
redis.call('DEL', KEYS[1])
table.insert(all, 1, 'taken')
return all
`;

/** A single-use flow's one attempt: with its secret it is taken (deleted); with another, left as it is. */
const TAKE = `
local s = redis.call('HMGET', KEYS[1], 'secret', 'purpose')
if not s[1] or s[2] ~= ARGV[2] then return {'unknown'} end
${takenIfTheBrowsers('s[1]', 'ARGV[1]')}`;

/** Stores a second step's WebAuthn challenge, only with its secret; answers the flow's owner. */
const ATTACH = `
local s = redis.call('HMGET', KEYS[1], 'secret', 'purpose', 'accountId', 'kind')
if not s[1] or s[1] ~= ARGV[1] or s[2] ~= 'second_step' or not s[3] then return {} end
redis.call('HSET', KEYS[1], 'webauthn', ARGV[2])
return {s[3], s[4] or ''}
`;

/** An email sign-in's mail: the owner and the hashes of its link and code, once, while the flow lives. */
const ARM = `
local s = redis.call('HMGET', KEYS[1], 'purpose', 'armed')
if s[1] ~= 'email' or s[2] then return 0 end
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
`;

/** An email sign-in's link: with the browser's secret too, taken; with the link's alone, left to the browser that asked. A flow whose code ran out of attempts is spent, its link with it. */
const TAKE_LINK = `
local s = redis.call('HMGET', KEYS[1], 'purpose', 'link', 'secret', 'attempts', 'max')
if s[1] ~= 'email' or not s[2] or s[2] ~= ARGV[1] then return {'unknown'} end
if tonumber(s[4] or '0') >= tonumber(s[5] or '1') then return {'unknown'} end
${takenIfTheBrowsers('s[3]', 'ARGV[2]')}`;

type ScriptClient = Redis & {
  flowAttempt(key: string, secretHash: string, purpose: string): Promise<string[]>;
  flowArm(key: string, ...fields: string[]): Promise<number>;
  flowTakeLink(key: string, linkHash: string, browserHash: string): Promise<string[]>;
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
    redis.defineCommand('flowArm', { numberOfKeys: 1, lua: ARM });
    redis.defineCommand('flowTakeLink', { numberOfKeys: 1, lua: TAKE_LINK });
    this.redis = redis as ScriptClient;
  }

  async open(flow: NewSignInFlow, options: { mailCode?: boolean; key?: { id: string; secret: string } } = {}): Promise<{ id: string; token: string; code?: string; expiresAt: Date }> {
    if (options.key && !STATE.test(options.key.id)) throw new Error('A flow id must be 20-128 base64url characters');
    const token = options.key ? { ...options.key, value: `${options.key.id}.${options.key.secret}` } : mintToken();
    const ttlMs = this.options.ttlMs[flow.purpose];
    const expiresAt = new Date(Date.now() + ttlMs);
    const secondStep = flow.purpose === 'second_step' && flow.accountId !== undefined ? flow.accountId : undefined;
    // Whose wrong codes a code's attempts count against: the account's, or an email sign-in's address's.
    const guesser = secondStep ?? (flow.purpose === 'email' && flow.email !== undefined ? addressGuesser(flow.kind, flow.email) : undefined);
    const max = guesser !== undefined ? await this.guesses.guessesPerChallenge(flow.kind, guesser) : 1;
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
    if (flow.email !== undefined) fields.email = flow.email;
    if (guesser !== undefined) fields.guesser = guesser;
    if (code) fields.codeMac = this.mac(token.id, code);
    const key = flowKey(token.id);
    await execOrThrow(this.redis.multi().hset(key, fields).pexpire(key, ttlMs));
    if (secondStep !== undefined) {
      // After the new flow exists: of two logins at once, the one that swaps last ends the other.
      const previous = await this.redis.set(ownerKey(flow.kind, secondStep), token.id, 'PX', ttlMs, 'GET');
      if (previous && previous !== token.id) await this.redis.del(flowKey(previous));
    }
    return { id: token.id, token: token.value, code, expiresAt };
  }

  async attempt(challengeToken: string, prove: (challenge: OpenChallenge) => Promise<ProofVerdict>): Promise<AttemptResult> {
    return this.counted(challengeToken, 'second_step', prove);
  }

  async enterCode(flowToken: string, code: string): Promise<AttemptResult> {
    return this.counted(flowToken, 'email', async (challenge) => challenge.isMailedCode(code));
  }

  /** One counted attempt at a flow of `purpose` whose code someone guesses: a second step, or an email sign-in's code. */
  private async counted(flowToken: string, purpose: 'second_step' | 'email', prove: (challenge: OpenChallenge) => Promise<ProofVerdict>): Promise<AttemptResult> {
    const token = parseToken(flowToken);
    if (!token) return { outcome: 'invalid_challenge' };
    const key = flowKey(token.id);
    const [storedPurpose, owner, ownerKind, tried, max, storedGuesser] = await this.redis.hmget(key, 'purpose', 'accountId', 'kind', 'attempts', 'max', 'guesser');
    // A second step's guesses are its account's (flows opened before `guesser` was kept name only the account); another purpose's flow has none here.
    const guesser = storedPurpose !== purpose ? null : (storedGuesser ?? (purpose === 'second_step' ? owner : null));
    // Spent: as gone as a used one, whatever the account's wait.
    if (!guesser || Number(tried ?? 0) >= Number(max ?? this.options.maxAttempts)) return { outcome: 'invalid_challenge' };
    const kind = asKind(ownerKind);
    const wait = await this.guesses.waitBeforeGuess(kind, guesser);
    if (wait > 0) return { outcome: 'throttled', retryAfterMs: wait };
    const [status, ...pairs] = await this.redis.flowAttempt(key, sha256(token.secret), purpose);
    if (status !== 'ok') return { outcome: 'invalid_challenge' };
    const stored = fieldsOf(pairs);
    const flow = flowOf(stored);
    const challenge: OpenChallenge = {
      kind: flow.kind,
      accountId: stored.accountId ?? '',
      isMailedCode: (code) => sameSecret(this.mac(token.id, code), stored.codeMac ?? UNARMED),
      webauthnChallenge: flow.webauthnChallenge,
    };
    const verdict = await prove(challenge);
    if (verdict === true) {
      // Single use: of two parallel correct submissions only the one that deletes the key wins.
      if ((await this.redis.del(key)) !== 1) return { outcome: 'invalid_challenge' };
      await this.guesses.succeeded(kind, guesser);
      return { outcome: 'verified', flow };
    }
    // A correct code again (its copy won, or it was used a moment ago): refused as a wrong one, but no guess.
    if (verdict === 'used') return { outcome: 'wrong_code' };
    await this.guesses.failed(kind, guesser);
    return { outcome: 'wrong_code' };
  }

  async arm(flowId: string, owner: { accountId: string; credentialEpoch: number } | { signUp: true }): Promise<MailedSignIn | undefined> {
    if (!FLOW_ID.test(flowId)) return undefined;
    const key = flowKey(flowId);
    const link = mintToken();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const fields = ['armed', '1', 'link', sha256(link.secret), 'codeMac', this.mac(flowId, code)];
    if ('signUp' in owner) fields.push('signUp', '1');
    else fields.push('accountId', owner.accountId, 'epoch', String(owner.credentialEpoch));
    if ((await this.redis.flowArm(key, ...fields)) !== 1) return undefined;
    const expiresAt = Number(await this.redis.hget(key, 'expiresAt'));
    return { link: `${flowId}.${link.secret}`, code, expiresAt: new Date(expiresAt) };
  }

  async takeLink(link: string, browserFlow: string | undefined): Promise<TakenFlow> {
    const presented = parseToken(link);
    if (!presented) return { outcome: 'unknown' };
    // The browser's token names the same flow, or it is another browser's (none at all: a hash of nothing matches no flow).
    const browser = parseToken(browserFlow);
    const browserSecret = browser?.id === presented.id ? browser.secret : '';
    const [outcome, ...pairs] = await this.redis.flowTakeLink(flowKey(presented.id), sha256(presented.secret), sha256(browserSecret));
    if (outcome !== 'taken' && outcome !== 'other_browser') return { outcome: 'unknown' };
    return { outcome, flow: flowOf(fieldsOf(pairs)) };
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
/** The id part of a minted token (opaque-token.ts). */
const FLOW_ID = /^[A-Za-z0-9_-]{22}$/;
/** What an unarmed email sign-in's code is compared with: the MAC of no code matches it. */
const UNARMED = 'unarmed';
/** The wrong codes of an email sign-in count against its address, whether or not an account has it. */
const addressGuesser = (kind: AccountKind, email: string) => `address:${sha256(`${kind}:${email}`)}`;
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
    ...(stored.email !== undefined ? { email: stored.email } : {}),
    ...(stored.signUp ? { signUp: true as const } : {}),
  };
}
