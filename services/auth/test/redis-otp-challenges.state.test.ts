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
