// Second-step challenges against real Redis: mailed codes drawn from the whole 6-digit range, every
// proof verified once, wrong ones counted per account across challenges.
import crypto from 'node:crypto';
import Redis from 'ioredis';
import { RedisOtpChallenges } from '../src/data-access/redis-otp-challenges';
import type { OpenChallenge } from '../src/domain/ports';
import { isolatedRedis, type IsolatedRedis } from '@acct/test-harness/isolation';

let isolated: IsolatedRedis;
let redis: Redis;
let raw: Redis;
let names: IsolatedRedis['names'];
let store: RedisOtpChallenges;

/** Opens an admin's challenge with a mailed code. */
const open = async (adminId: string, epoch = 0) => {
  const opened = await store.create('admin', adminId, '127.0.0.1', epoch, { mailCode: true });
  return { ...opened, code: opened.code as string };
};
/** The proof of a mailed code. */
const mailed = (code: string) => async (challenge: OpenChallenge) => challenge.isMailedCode(code);

beforeAll(() => {
  isolated = isolatedRedis('otpstore');
  ({ redis, raw, names } = isolated);
  store = new RedisOtpChallenges(redis, { secret: 'a test secret of enough length', ttlMs: 60_000, maxAttempts: 5 });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await isolated.close();
});

describe('RedisOtpChallenges codes', () => {
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
    expect(await store.verify(challengeToken, mailed(code))).toEqual({ outcome: 'verified', kind: 'admin', accountId: 'admin-once', credentialEpoch: 3 });
    expect(await store.verify(challengeToken, mailed(code))).toEqual({ outcome: 'invalid_challenge' });
  });

  it('when a challenge is opened without a mailed code, then no code is made and no 6-digit guess passes as one', async () => {
    const opened = await store.create('user', 'user-with-app', '127.0.0.1', 0, { mailCode: false });
    expect(opened.code).toBeUndefined();
    const seen: OpenChallenge[] = [];
    const result = await store.verify(opened.challengeToken, async (challenge) => {
      seen.push(challenge);
      return challenge.isMailedCode('000000') || challenge.isMailedCode('123456');
    });
    expect(result).toEqual({ outcome: 'wrong_code' });
    expect(seen[0]).toMatchObject({ kind: 'user', accountId: 'user-with-app' });
  });

  it('when ten proofs are checked at once against a challenge of five guesses, then at most five are asked about', async () => {
    const opened = await store.create('user', 'user-burst', '127.0.0.1', 0, { mailCode: false });
    let asked = 0;
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        store.verify(opened.challengeToken, async () => {
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
    const opened = await store.create('user', 'user-passkey', '127.0.0.1', 0, { mailCode: false });
    expect(await store.attachWebauthn(opened.challengeToken, 'webauthn-challenge')).toEqual({ kind: 'user', accountId: 'user-passkey' });
    let seen: string | undefined;
    await store.verify(opened.challengeToken, async (challenge) => {
      seen = challenge.webauthnChallenge;
      return true;
    });
    expect(seen).toBe('webauthn-challenge');
    // Used up: nothing to attach to, and nothing is brought back.
    expect(await store.attachWebauthn(opened.challengeToken, 'again')).toBeUndefined();
    expect(await raw.exists(`${names.redisPrefix}otp:{${opened.challengeToken.split('.')[0]}}`)).toBe(0);
  });
});

describe('RedisOtpChallenges across challenges', () => {
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const failures = (adminId: string) => raw.get(`${names.redisPrefix}otp-fail:{admin:${adminId}}`);

  it('when an admin spends every guess of a challenge, then the next challenge has fewer guesses and the next guess waits', async () => {
    const first = await open('admin-guesser');
    for (let i = 0; i < 5; i++) expect((await store.verify(first.challengeToken, mailed(wrong(first.code)))).outcome).toBe('wrong_code');
    expect(await failures('admin-guesser')).toBe('5');

    const second = await open('admin-guesser');
    const throttled = await store.verify(second.challengeToken, mailed(second.code));
    expect(throttled).toMatchObject({ outcome: 'throttled' });
    expect((throttled as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
    expect((throttled as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(1_000);
    expect(await raw.hget(`${names.redisPrefix}otp:{${second.challengeToken.split('.')[0]}}`, 'max')).toBe('4');
  });

  it('when the owner waits and gives the right code, then it verifies and the count starts over', async () => {
    const first = await open('admin-owner');
    for (let i = 0; i < 5; i++) await store.verify(first.challengeToken, mailed(wrong(first.code)));
    const second = await open('admin-owner');
    await new Promise((r) => setTimeout(r, 1_050));
    expect((await store.verify(second.challengeToken, mailed(second.code))).outcome).toBe('verified');
    expect(await failures('admin-owner')).toBeNull();
  });

  it('never takes a challenge below one guess', async () => {
    await raw.set(`${names.redisPrefix}otp-fail:{admin:admin-many}`, '500');
    const challenge = await open('admin-many');
    expect(await raw.hget(`${names.redisPrefix}otp:{${challenge.challengeToken.split('.')[0]}}`, 'max')).toBe('1');
  });
});
