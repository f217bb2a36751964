// Waiting for replicas after a session write (REDIS_WAIT_REPLICAS), against the real local Redis,
// which has no replica: each WAIT there times out with 0 confirmations, as on a group whose replica
// is down. Past one timeout the writes go unconfirmed for 5 s rather than queue WAIT after WAIT.
import Redis from 'ioredis';
import { ReplicaWait } from '../src/data-access/redis-transaction';
import { testUrls } from '@acct/test-harness/isolation';

let redis: Redis;
let waits = 0;

beforeAll(() => {
  redis = new Redis(testUrls().redis);
  const pipeline = redis.pipeline.bind(redis);
  redis.pipeline = ((...args: Parameters<typeof pipeline>) => {
    const built = pipeline(...args);
    const call = built.call.bind(built);
    built.call = ((name: string, ...rest: unknown[]) => {
      if (name === 'WAIT') waits += 1;
      return call(name, ...(rest as string[]));
    }) as typeof built.call;
    return built;
  }) as typeof redis.pipeline;
});
afterAll(() => redis.quit());

describe('ReplicaWait', () => {
  it('waits for none when none are asked for', async () => {
    waits = 0;
    expect(await new ReplicaWait({ replicas: 0, timeoutMs: 50 }).after(redis, 'k')).toBe(0);
    expect(await new ReplicaWait(undefined).after(redis, 'k')).toBe(0);
    expect(waits).toBe(0);
  });

  it('after a WAIT that no replica confirmed, answers without waiting for 5 s, then tries again', async () => {
    let now = 1_000_000;
    const wait = new ReplicaWait({ replicas: 1, timeoutMs: 50 }, () => now);
    waits = 0;
    expect(await wait.after(redis, 'k')).toBe(0);
    expect(waits).toBe(1);
    now += 4_999;
    await wait.after(redis, 'k');
    await wait.after(redis, 'k');
    expect(waits).toBe(1);
    now += 2;
    await wait.after(redis, 'k');
    expect(waits).toBe(2);
  });
});
