// The admin one-time codes against real Redis: drawn from the whole 6-digit range, verified once.
import crypto from 'node:crypto';
import Redis from 'ioredis';
import { RedisOtpChallenges } from '../src/data-access/redis-otp-challenges';
import { deleteRedisPrefix, isolatedNames, testUrls } from '@acct/test-harness/isolation';

const names = isolatedNames('otpstore');
let redis: Redis;
let raw: Redis;
let store: RedisOtpChallenges;

beforeAll(() => {
  redis = new Redis(testUrls().redis, { keyPrefix: names.redisPrefix });
  raw = new Redis(testUrls().redis);
  store = new RedisOtpChallenges(redis, { secret: 'a test secret of enough length', ttlMs: 60_000, maxAttempts: 5 });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await deleteRedisPrefix(raw, names.redisPrefix);
  await redis.quit();
  await raw.quit();
});

describe('RedisOtpChallenges codes', () => {
  it('when 50 challenges are opened, then their codes are 6 digits drawn uniformly from all million values', async () => {
    const draw = jest.spyOn(crypto, 'randomInt');
    const codes: string[] = [];
    for (let i = 0; i < 50; i++) codes.push((await store.create(`admin-${i}`, '127.0.0.1', 0)).code);

    expect(codes.every((c) => /^\d{6}$/.test(c))).toBe(true);
    // Two equal codes among 50 happen once in about 800 runs; three, practically never.
    expect(new Set(codes).size).toBeGreaterThanOrEqual(48);
    expect(draw.mock.calls.every((args) => args[0] === 0 && args[1] === 1_000_000)).toBe(true);
    expect(draw).toHaveBeenCalledTimes(50);
  });

  it('when the right code is given twice, then only the first verifies', async () => {
    const { challengeToken, code } = await store.create('admin-once', '127.0.0.1', 3);
    expect(await store.verify(challengeToken, code)).toEqual({ outcome: 'verified', adminId: 'admin-once', credentialEpoch: 3 });
    expect(await store.verify(challengeToken, code)).toEqual({ outcome: 'invalid_challenge' });
  });
});

describe('RedisOtpChallenges across challenges', () => {
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const failures = (adminId: string) => raw.get(`${names.redisPrefix}otp-fail:${adminId}`);

  it('when an admin spends every guess of a challenge, then the next challenge has fewer guesses and the next guess waits', async () => {
    const first = await store.create('admin-guesser', '127.0.0.1', 0);
    for (let i = 0; i < 5; i++) expect((await store.verify(first.challengeToken, wrong(first.code))).outcome).toBe('wrong_code');
    expect(await failures('admin-guesser')).toBe('5');

    const second = await store.create('admin-guesser', '127.0.0.1', 0);
    const throttled = await store.verify(second.challengeToken, second.code);
    expect(throttled).toMatchObject({ outcome: 'throttled' });
    expect((throttled as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
    expect((throttled as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(1_000);
    expect(await raw.hget(`${names.redisPrefix}otp:{${second.challengeToken.split('.')[0]}}`, 'max')).toBe('4');
  });

  it('when the owner waits and gives the right code, then it verifies and the count starts over', async () => {
    const first = await store.create('admin-owner', '127.0.0.1', 0);
    for (let i = 0; i < 5; i++) await store.verify(first.challengeToken, wrong(first.code));
    const second = await store.create('admin-owner', '127.0.0.1', 0);
    await new Promise((r) => setTimeout(r, 1_050));
    expect((await store.verify(second.challengeToken, second.code)).outcome).toBe('verified');
    expect(await failures('admin-owner')).toBeNull();
  });

  it('never takes a challenge below one guess', async () => {
    await raw.set(`${names.redisPrefix}otp-fail:admin-many`, '500');
    const challenge = await store.create('admin-many', '127.0.0.1', 0);
    expect(await raw.hget(`${names.redisPrefix}otp:{${challenge.challengeToken.split('.')[0]}}`, 'max')).toBe('1');
  });
});
