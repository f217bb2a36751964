// The cross-replica lock against real Redis: one holder at a time, and a wait that ends in `busy`
// (an outcome the domain turns into a 503) instead of running the work late.
import { RedisLocks } from '../src/data-access/redis-locks';
import { isolatedRedis, type IsolatedRedis } from '@acct/test-harness/isolation';

let isolated: IsolatedRedis;
beforeAll(() => {
  isolated = isolatedRedis('locks');
});
afterAll(() => isolated.close());

it('answers busy, without running the work, while another holder keeps the lock past the wait; runs it once the lock is free', async () => {
  const locks = new RedisLocks(isolated.redis, { ttlMs: 5_000, waitMs: 200 });
  let release!: () => void;
  const holding = locks.run('admins', () => new Promise<string>((resolve) => (release = () => resolve('first'))));
  // Let the first take the lock.
  await new Promise((r) => setTimeout(r, 50));
  let ran = false;
  expect(
    await locks.run('admins', async () => {
      ran = true;
      return 'second';
    }),
  ).toBe('busy');
  expect(ran).toBe(false);
  release();
  expect(await holding).toBe('first');
  expect(await locks.run('admins', async () => 'third')).toBe('third');
});
