// The duplicate check against real Redis: an event is claimed once, done is remembered for
// DONE_TTL_SECONDS under one short key, and a claim that failed is given back for a retry.
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { compactId, IdempotencyStore } from '../src/data-access/idempotency-store';
import { isolatedRedis, type IsolatedRedis } from '@acct/test-harness/isolation';

let isolated: IsolatedRedis;
let redis: Redis;
let raw: Redis;
let names: IsolatedRedis['names'];
let store: IdempotencyStore;

beforeAll(() => {
  isolated = isolatedRedis('idemstore');
  ({ redis, raw, names } = isolated);
  store = new IdempotencyStore(redis, { claimTtlMs: 5_000, doneTtlSeconds: 86_400 });
});
afterAll(async () => {
  await isolated.close();
});

describe('IdempotencyStore', () => {
  it('when an event is done, then a copy finds it done, for DONE_TTL_SECONDS, under one short key', async () => {
    const eventId = randomUUID();
    const claim = await store.claim(eventId);
    expect(claim.status).toBe('claimed');
    expect(await store.claim(eventId)).toEqual({ status: 'in_progress' });
    await store.markDone(eventId);
    expect(await store.claim(eventId)).toEqual({ status: 'done' });

    // Tests run in random order: only this event's keys are looked at.
    const keys = (await raw.keys(`${names.redisPrefix}*`)).filter((k) => !k.includes('~'));
    expect(keys).toEqual([`${names.redisPrefix}e:${compactId(eventId)}`]);
    expect(compactId(eventId)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await raw.get(keys[0])).toBe('1');
    const ttl = await raw.ttl(keys[0]);
    expect(ttl).toBeGreaterThan(86_000);
    expect(ttl).toBeLessThanOrEqual(86_400);
  });

  it('keeps ids that are not UUIDs apart from UUIDs, and a released claim can be taken again', async () => {
    expect(compactId('not-a-uuid')).toBe('~not-a-uuid');
    const claim = await store.claim('not-a-uuid');
    if (claim.status !== 'claimed') throw new Error(claim.status);
    await store.release('not-a-uuid', claim.token);
    expect((await store.claim('not-a-uuid')).status).toBe('claimed');
  });
});
