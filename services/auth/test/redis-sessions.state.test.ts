// The refresh session store against real Redis, with a controllable clock for lifetimes.
import Redis from 'ioredis';
import { RedisSessions } from '../src/data-access/redis-sessions';
import { deleteRedisPrefix, isolatedNames, testUrls } from '@acct/test-harness/isolation';

const names = isolatedNames('rstore');
let redis: Redis;
let raw: Redis;
let now = Date.now();
let store: RedisSessions;

beforeAll(() => {
  redis = new Redis(testUrls().redis, { keyPrefix: names.redisPrefix });
  raw = new Redis(testUrls().redis);
  store = new RedisSessions(redis, { idleTtlMs: 60_000, graceMs: 10_000, maxAgeMs: { user: 3_600_000, admin: 600_000 } }, () => now);
});
afterAll(async () => {
  await deleteRedisPrefix(raw, names.redisPrefix);
  await redis.quit();
  await raw.quit();
});

describe('RedisSessions', () => {
  it('stores only hashes: neither the token nor its secret is in Redis', async () => {
    const { token, sessionId } = await store.create({ kind: 'user', accountId: 'a1', role: 'user' });
    const stored = await raw.hgetall(`${names.redisPrefix}rs:{${sessionId}}`);
    expect(JSON.stringify(stored)).not.toContain(token.split('.')[1]);
    expect(stored).toMatchObject({ kind: 'user', accountId: 'a1', role: 'user' });
  });

  it('ends a session at its absolute lifetime even while it keeps rotating', async () => {
    now = Date.now();
    let { token } = await store.create({ kind: 'admin', accountId: 'a2', role: 'admin' });
    for (let i = 0; i < 5; i++) {
      now += 100_000;
      const result = await store.rotate('admin', token);
      expect(result.outcome).toBe('rotated');
      token = (result as { token: string }).token;
    }
    now += 100_001; // past 600 s since creation
    expect((await store.rotate('admin', token)).outcome).toBe('expired');
  });

  it('gives the same successor within the grace window and revokes after it', async () => {
    now = Date.now();
    const { token } = await store.create({ kind: 'user', accountId: 'a3', role: 'user' });
    const first = await store.rotate('user', token);
    now += 9_000;
    const second = await store.rotate('user', token);
    expect(second).toMatchObject({ outcome: 'grace', token: (first as { token: string }).token });
    now += 2_000;
    expect((await store.rotate('user', token)).outcome).toBe('reused');
    expect((await store.rotate('user', (first as { token: string }).token)).outcome).toBe('missing');
  });

  it('keeps kinds apart and revokes every session of an account', async () => {
    now = Date.now();
    const a = await store.create({ kind: 'user', accountId: 'a4', role: 'user' });
    const b = await store.create({ kind: 'user', accountId: 'a4', role: 'user' });
    expect((await store.rotate('admin', a.token)).outcome).toBe('wrong_kind');
    expect(await store.revokeAll('user', 'a4')).toBe(2);
    expect((await store.rotate('user', a.token)).outcome).toBe('missing');
    expect((await store.rotate('user', b.token)).outcome).toBe('missing');
  });

  it('refuses a token with the right session id but a forged secret, and revokes on it', async () => {
    const { token } = await store.create({ kind: 'user', accountId: 'a5', role: 'user' });
    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    expect(await store.revoke('user', forged)).toBe(false);
    expect((await store.rotate('user', token)).outcome).toBe('rotated');
  });
});
