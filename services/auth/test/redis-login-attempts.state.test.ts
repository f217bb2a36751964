// The failed-login budget against real Redis: reservations are atomic, so a burst cannot outrun it.
import Redis from 'ioredis';
import { RedisLoginAttempts } from '../src/data-access/redis-login-attempts';
import { isolatedRedis, type IsolatedRedis } from '@acct/test-harness/isolation';

let isolated: IsolatedRedis;
let redis: Redis;

beforeAll(() => {
  isolated = isolatedRedis('loginattempts');
  ({ redis } = isolated);
});
afterAll(async () => {
  await isolated.close();
});

describe('RedisLoginAttempts.reserve', () => {
  it('when 50 reservations for one account and address arrive at once with a limit of 5, then exactly 5 are granted', async () => {
    const attempts = new RedisLoginAttempts(redis, { perAccountAndIp: 5, perAccount: 100, windowMs: 60_000 });

    const answers = await Promise.all(Array.from({ length: 50 }, () => attempts.reserve('user', 'burst@example.com', '203.0.113.7')));

    expect(answers.filter((a) => a.allowed)).toHaveLength(5);
    expect(answers.filter((a) => !a.allowed).every((a) => !a.allowed && a.scope === 'account_ip' && a.retryAfterMs > 0)).toBe(true);
  });

  it('when 50 arrive at once from 50 addresses with an account-wide limit of 5, then exactly 5 are granted', async () => {
    const attempts = new RedisLoginAttempts(redis, { perAccountAndIp: 5, perAccount: 5, windowMs: 60_000 });

    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => attempts.reserve('user', 'spread@example.com', `203.0.113.${i + 1}`)));

    expect(answers.filter((a) => a.allowed)).toHaveLength(5);
  });
});
