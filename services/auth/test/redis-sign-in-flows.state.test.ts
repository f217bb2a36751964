// Sign-in flows against real Redis: mailed codes drawn from the whole 6-digit range, every proof
// verified once, wrong ones counted per account across flows; passkey and provider flows taken once,
// only with their secret; each purpose's lifetime.
import crypto from 'node:crypto';
import Redis from 'ioredis';
import { RedisSignInFlows } from '../src/data-access/redis-sign-in-flows';
import type { NewSignInFlow, OpenChallenge } from '../src/domain/ports';
import { isolatedRedis, type IsolatedRedis } from '@acct/test-harness/isolation';

let isolated: IsolatedRedis;
let redis: Redis;
let raw: Redis;
let names: IsolatedRedis['names'];
let store: RedisSignInFlows;

const secondStep = (kind: 'user' | 'admin', accountId: string, credentialEpoch = 0): NewSignInFlow => ({
  purpose: 'second_step',
  kind,
  accountId,
  credentialEpoch,
  proven: ['password'],
  next: kind === 'admin' ? ['email_code'] : ['totp'],
  ip: '127.0.0.1',
});
/** Opens an admin's second step with a mailed code. */
const open = async (adminId: string, epoch = 0) => {
  const opened = await store.open(secondStep('admin', adminId, epoch), { mailCode: true });
  return { ...opened, challengeToken: opened.token, code: opened.code as string };
};
const flowKey = (token: string) => `${names.redisPrefix}sign-in:{${token.split('.')[0]}}`;
/** The proof of a mailed code. */
const mailed = (code: string) => async (challenge: OpenChallenge) => challenge.isMailedCode(code);

beforeAll(() => {
  isolated = isolatedRedis('otpstore');
  ({ redis, raw, names } = isolated);
  store = new RedisSignInFlows(redis, { secret: 'a test secret of enough length', ttlMs: { second_step: 60_000, passkey: 30_000, provider: 90_000, email: 45_000 }, maxAttempts: 5 });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await isolated.close();
});

describe('RedisSignInFlows second steps', () => {
  it('when 50 challenges are opened, then their codes are 6 digits drawn uniformly from all million values', async () => {
    const draw = jest.spyOn(crypto, 'randomInt');
    const codes: string[] = [];
    for (let i = 0; i < 50; i++) codes.push((await open(`admin-${i}`)).code);

    expect(codes.every((c) => /^\d{6}$/.test(c))).toBe(true);
    // Two equal codes among 50 happen once in about 800 runs; three, practically never.
    expect(new Set(codes).size).toBeGreaterThanOrEqual(48);
    expect(draw.mock.calls.every((args) => args[0] === 0 && args[1] === 1_000_000)).toBe(true);
    expect(draw).toHaveBeenCalledTimes(50);
  });

  it('when the right code is given twice, then only the first verifies', async () => {
    const { challengeToken, code } = await open('admin-once', 3);
    expect(await store.attempt(challengeToken, mailed(code))).toMatchObject({
      outcome: 'verified',
      flow: { purpose: 'second_step', kind: 'admin', accountId: 'admin-once', credentialEpoch: 3, proven: ['password'], next: ['email_code'], attempts: 1 },
    });
    expect(await store.attempt(challengeToken, mailed(code))).toEqual({ outcome: 'invalid_challenge' });
  });

  it('when two right codes are checked at once, both past every read before either answers, then exactly one verifies', async () => {
    const { challengeToken, code } = await open('admin-race');
    // Both proofs are asked before either answers: each has read the flow and counted its attempt.
    let release!: () => void;
    const bothAsked = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    const slow = async (challenge: OpenChallenge) => {
      if (++asked === 2) release();
      await bothAsked;
      return challenge.isMailedCode(code);
    };
    const results = await Promise.all([store.attempt(challengeToken, slow), store.attempt(challengeToken, slow)]);
    expect(asked).toBe(2);
    expect(results.map((r) => r.outcome).sort()).toEqual(['invalid_challenge', 'verified']);
  });

  it('when a challenge is opened without a mailed code, then no code is made and no 6-digit guess passes as one', async () => {
    const opened = await store.open(secondStep('user', 'user-with-app'));
    expect(opened.code).toBeUndefined();
    const seen: OpenChallenge[] = [];
    const result = await store.attempt(opened.token, async (challenge) => {
      seen.push(challenge);
      return challenge.isMailedCode('000000') || challenge.isMailedCode('123456');
    });
    expect(result).toEqual({ outcome: 'wrong_code' });
    expect(seen[0]).toMatchObject({ kind: 'user', accountId: 'user-with-app' });
  });

  it('when ten proofs are checked at once against a challenge of five guesses, then at most five are asked about', async () => {
    const opened = await store.open(secondStep('user', 'user-burst'));
    let asked = 0;
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        store.attempt(opened.token, async () => {
          asked += 1;
          return false;
        }),
      ),
    );
    // Those that came after the fifth wrong one are refused unasked (the challenge ended, or the account must wait).
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(asked).toBeLessThanOrEqual(5);
    expect(results.filter((r) => r.outcome === 'wrong_code')).toHaveLength(asked);
  });

  it('when a WebAuthn challenge is attached, then the proof sees it, and an expired challenge takes none', async () => {
    const opened = await store.open(secondStep('user', 'user-passkey'));
    expect(await store.attachWebauthn(opened.token, 'webauthn-challenge')).toEqual({ kind: 'user', accountId: 'user-passkey' });
    let seen: string | undefined;
    await store.attempt(opened.token, async (challenge) => {
      seen = challenge.webauthnChallenge;
      return true;
    });
    expect(seen).toBe('webauthn-challenge');
    // Used up: nothing to attach to, and nothing is brought back.
    expect(await store.attachWebauthn(opened.token, 'again')).toBeUndefined();
    expect(await raw.exists(flowKey(opened.token))).toBe(0);
  });
});

describe('RedisSignInFlows across second steps', () => {
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const failures = (adminId: string) => raw.get(`${names.redisPrefix}otp-fail:{admin:${adminId}}`);

  it('when an admin spends every guess of a challenge, then the next challenge has fewer guesses and the next guess waits', async () => {
    const first = await open('admin-guesser');
    for (let i = 0; i < 5; i++) expect((await store.attempt(first.challengeToken, mailed(wrong(first.code)))).outcome).toBe('wrong_code');
    expect(await failures('admin-guesser')).toBe('5');

    const second = await open('admin-guesser');
    const throttled = await store.attempt(second.challengeToken, mailed(second.code));
    expect(throttled).toMatchObject({ outcome: 'throttled' });
    expect((throttled as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
    expect((throttled as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(1_000);
    expect(await raw.hget(flowKey(second.challengeToken), 'max')).toBe('4');
  });

  it('when the owner waits and gives the right code, then it verifies and the count starts over', async () => {
    const first = await open('admin-owner');
    for (let i = 0; i < 5; i++) await store.attempt(first.challengeToken, mailed(wrong(first.code)));
    const second = await open('admin-owner');
    await new Promise((r) => setTimeout(r, 1_050));
    expect((await store.attempt(second.challengeToken, mailed(second.code))).outcome).toBe('verified');
    expect(await failures('admin-owner')).toBeNull();
  });

  it('never takes a challenge below one guess', async () => {
    await raw.set(`${names.redisPrefix}otp-fail:{admin:admin-many}`, '500');
    const challenge = await open('admin-many');
    expect(await raw.hget(flowKey(challenge.challengeToken), 'max')).toBe('1');
  });
});

describe('RedisSignInFlows taken once', () => {
  const passkey = (kind: 'user' | 'admin'): NewSignInFlow => ({ purpose: 'passkey', kind, proven: [], next: ['passkey'], webauthnChallenge: 'wc' });
  const provider = { id: 'idp', intent: 'sign_in' as const, nonce: 'n', codeVerifier: 'v', returnTo: 'https://app.example/' };

  it('when a passkey flow is taken twice, then the second finds nothing, and its token is no second step', async () => {
    const { token } = await store.open(passkey('user'));
    expect(await store.attempt(token, async () => true)).toEqual({ outcome: 'invalid_challenge' });
    expect(await store.attachWebauthn(token, 'other')).toBeUndefined();
    expect(await store.take('provider', { token })).toEqual({ outcome: 'unknown' });
    expect(await store.take('passkey', { token })).toMatchObject({ outcome: 'taken', flow: { purpose: 'passkey', kind: 'user', webauthnChallenge: 'wc', next: ['passkey'], attempts: 0 } });
    expect(await store.take('passkey', { token })).toEqual({ outcome: 'unknown' });
  });

  it('when a passkey token is presented with another secret, then nothing is taken', async () => {
    const { token } = await store.open(passkey('admin'));
    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    expect(await store.take('passkey', { token: forged })).toEqual({ outcome: 'other_browser', flow: expect.objectContaining({ kind: 'admin' }) });
    expect((await store.take('passkey', { token })).outcome).toBe('taken');
  });

  it('when a provider flow comes back with another browser\'s secret, then it stays for the browser that started it', async () => {
    const state = 'P'.repeat(43);
    await store.open({ purpose: 'provider', kind: 'user', proven: [], next: ['provider_callback'], provider }, { key: { id: state, secret: 'cookie-secret' } });
    expect(await store.take('provider', { id: state, secret: 'someone-else' })).toMatchObject({ outcome: 'other_browser' });
    expect(await store.take('provider', { id: state, secret: 'cookie-secret' })).toMatchObject({ outcome: 'taken', flow: { provider } });
    expect(await store.take('provider', { id: state, secret: 'cookie-secret' })).toEqual({ outcome: 'unknown' });
    expect(await store.take('provider', { id: 'not a state', secret: 'x' })).toEqual({ outcome: 'unknown' });
  });

  it('when flows of each purpose open, then each lives its purpose\'s lifetime and never longer', async () => {
    const step = await store.open(secondStep('user', 'user-ttl'));
    const key = await store.open(passkey('user'));
    const state = 'T'.repeat(43);
    await store.open({ purpose: 'provider', kind: 'user', proven: [], next: ['provider_callback'], provider }, { key: { id: state, secret: 's' } });
    const ttl = async (k: string) => raw.pttl(k);
    expect(await ttl(flowKey(step.token))).toBeGreaterThan(55_000);
    expect(await ttl(flowKey(step.token))).toBeLessThanOrEqual(60_000);
    expect(await ttl(flowKey(key.token))).toBeLessThanOrEqual(30_000);
    expect(await ttl(flowKey(key.token))).toBeGreaterThan(25_000);
    expect(await ttl(`${names.redisPrefix}sign-in:{${state}}`)).toBeGreaterThan(85_000);
    // Using a second step (a wrong guess, a passkey challenge attached) does not extend it.
    await raw.pexpire(flowKey(step.token), 5_000);
    await store.attachWebauthn(step.token, 'wc');
    await store.attempt(step.token, async () => false);
    expect(await ttl(flowKey(step.token))).toBeLessThanOrEqual(5_000);
  });

  it('when the account logs in again, then its older second step ends', async () => {
    const first = await store.open(secondStep('user', 'user-twice'));
    const second = await store.open(secondStep('user', 'user-twice'));
    expect(await store.attempt(first.token, async () => true)).toEqual({ outcome: 'invalid_challenge' });
    expect((await store.attempt(second.token, async () => true)).outcome).toBe('verified');
  });
});

describe('RedisSignInFlows email sign-ins', () => {
  const asked = (email: string): NewSignInFlow => ({ purpose: 'email', kind: 'user', proven: [], next: ['email_sign_in'], email, ip: '127.0.0.1' });
  const idOf = (token: string) => token.split('.')[0];

  it('when a flow is armed, then its link and code are good once, its life is the purpose\'s, and only hashes are stored', async () => {
    const flow = await store.open(asked('grace@example.com'));
    const mailed = await store.arm(idOf(flow.token), { accountId: 'user-mail', credentialEpoch: 2 });
    if (!mailed) throw new Error('not armed');
    expect(mailed.code).toMatch(/^\d{6}$/);
    expect(idOf(mailed.link)).toBe(idOf(flow.token));
    expect(await raw.pttl(flowKey(flow.token))).toBeLessThanOrEqual(45_000);
    const stored = Object.values(await raw.hgetall(flowKey(flow.token))).join(' ');
    expect(stored).not.toContain(mailed.code);
    expect(stored).not.toContain(mailed.link.split('.')[1]);
    // Armed once: a worker's retry mails nothing new.
    expect(await store.arm(idOf(flow.token), { accountId: 'user-mail', credentialEpoch: 2 })).toBeUndefined();
    const taken = await store.takeLink(mailed.link, flow.token);
    expect(taken).toMatchObject({ outcome: 'taken', flow: { purpose: 'email', accountId: 'user-mail', credentialEpoch: 2, email: 'grace@example.com' } });
    expect(await store.takeLink(mailed.link, flow.token)).toEqual({ outcome: 'unknown' });
    expect(await store.enterCode(flow.token, mailed.code)).toEqual({ outcome: 'invalid_challenge' });
  });

  it('when the link comes with another browser\'s flow or none, then it stays for the browser that asked', async () => {
    const flow = await store.open(asked('other@example.com'));
    const other = await store.open(asked('other@example.com'));
    const mailed = await store.arm(idOf(flow.token), { accountId: 'user-other', credentialEpoch: 0 });
    if (!mailed) throw new Error('not armed');
    expect((await store.takeLink(mailed.link, undefined)).outcome).toBe('other_browser');
    expect((await store.takeLink(mailed.link, other.token)).outcome).toBe('other_browser');
    expect((await store.takeLink(`${idOf(flow.token)}.${'x'.repeat(43)}`, flow.token)).outcome).toBe('unknown');
    expect((await store.takeLink(mailed.link, flow.token)).outcome).toBe('taken');
  });

  it('when the code is right, then it takes the flow and its link; wrong ones count against the address, whether an account has it or not', async () => {
    const flow = await store.open(asked('code@example.com'));
    const mailed = await store.arm(idOf(flow.token), { signUp: true });
    if (!mailed) throw new Error('not armed');
    const wrong = mailed.code === '000000' ? '111111' : '000000';
    expect(await store.enterCode(flow.token, wrong)).toEqual({ outcome: 'wrong_code' });
    expect(await store.enterCode(flow.token, mailed.code)).toMatchObject({ outcome: 'verified', flow: { purpose: 'email', signUp: true, email: 'code@example.com' } });
    expect((await store.takeLink(mailed.link, flow.token)).outcome).toBe('unknown');
    // An address whose flow was never armed (no account, no sign-up) answers a guess as any other.
    const unarmed = await store.open(asked('nobody@example.com'));
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await store.enterCode(unarmed.token, '123456')).outcome);
    expect(answers).toEqual(['wrong_code', 'wrong_code', 'wrong_code', 'wrong_code', 'wrong_code', 'invalid_challenge']);
    // A spent flow's link is spent with it.
    const spent = await store.arm(idOf(unarmed.token), { signUp: true });
    if (!spent) throw new Error('not armed');
    expect(await store.takeLink(spent.link, unarmed.token)).toEqual({ outcome: 'unknown' });
    // Its wrong guesses are the address's: the next flow of it waits, as one of an account's would.
    const again = await store.open(asked('nobody@example.com'));
    expect((await store.enterCode(again.token, '123456')).outcome).toBe('throttled');
    // A second step's token is no email flow's, nor the reverse.
    const step = await store.open(secondStep('user', 'user-cross'));
    expect(await store.enterCode(step.token, '123456')).toEqual({ outcome: 'invalid_challenge' });
    expect(await store.attempt(again.token, async () => true)).toEqual({ outcome: 'invalid_challenge' });
  });
});
