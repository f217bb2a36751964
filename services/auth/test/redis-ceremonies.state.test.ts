// A session's ceremonies and recent proofs against real Redis: a registration challenge is taken back once, and a
// session's recent proof holds its credential epoch and expires on its own after `stepUpMs`.
import Redis from 'ioredis';
import { RedisCeremonies } from '../src/data-access/redis-ceremonies';
import { isolatedRedis, type IsolatedRedis } from '@acct/test-harness/isolation';
import { scaled } from '@acct/test-harness/time-scale';

let isolated: IsolatedRedis;
let redis: Redis;

beforeAll(() => {
  isolated = isolatedRedis('ceremonies');
  ({ redis } = isolated);
});
afterAll(async () => {
  await isolated.close();
});

describe('RedisCeremonies', () => {
  it('when a recent proof is older than stepUpMs, then it is gone by itself', async () => {
    // On the run's time scale: on a busy machine (CI, 2026-11-28) the read right after the write came
    // more than a fixed 150 ms later and found the proof already gone.
    const stepUpMs = scaled(150);
    const ceremonies = new RedisCeremonies(redis, { ttlMs: 60_000, stepUpMs });
    await ceremonies.markProof('sid-expiring', 2);
    expect(await ceremonies.recentProof('sid-expiring')).toBe(2);
    await new Promise((r) => setTimeout(r, 2 * stepUpMs));
    expect(await ceremonies.recentProof('sid-expiring')).toBeUndefined();
  });

  it('when a proof was stored before epochs were kept, then it counts as none', async () => {
    const ceremonies = new RedisCeremonies(redis, { ttlMs: 60_000, stepUpMs: 60_000 });
    await redis.set('step-up:{sid-old}', '1', 'PX', 60_000);
    expect(await ceremonies.recentProof('sid-old')).toBeUndefined();
  });

  it('when a registration challenge is taken twice, then the second finds nothing', async () => {
    const ceremonies = new RedisCeremonies(redis, { ttlMs: 60_000, stepUpMs: 60_000 });
    const state = { challenge: 'c', kind: 'user' as const, accountId: 'u1', credentialEpoch: 2 };
    await ceremonies.beginRegistration('sid-register', state);
    expect(await ceremonies.finishRegistration('sid-register')).toEqual(state);
    expect(await ceremonies.finishRegistration('sid-register')).toBeUndefined();
  });
});
