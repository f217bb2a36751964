// Trusted browsers against real Redis: only a hash of each secret kept, good under its epoch until
// it ends, the newest ten per account, one forgotten at a time.
import Redis from 'ioredis';
import { RedisTrustedBrowsers } from '../src/data-access/redis-trusted-browsers';
import { isolatedRedis, type IsolatedRedis } from '@acct/test-harness/isolation';

let isolated: IsolatedRedis;
let redis: Redis;
let raw: Redis;
let names: IsolatedRedis['names'];

beforeAll(() => {
  isolated = isolatedRedis('trusted');
  ({ redis, raw, names } = isolated);
});
afterAll(async () => {
  await isolated.close();
});

describe('RedisTrustedBrowsers', () => {
  it('holds a token under its epoch only, keeps only its hash, and forgets it', async () => {
    const store = new RedisTrustedBrowsers(redis, { ttlMs: 60_000 });
    const token = await store.add('user', 'u1', 3, { ip: '203.0.113.1', userAgent: 'Firefox' });
    expect(await store.holds('user', 'u1', 3, token)).toBe(true);
    expect(await store.holds('user', 'u1', 4, token)).toBe(false);
    expect(await store.holds('admin', 'u1', 3, token)).toBe(false);
    expect(await store.holds('user', 'u1', 3, `${token.split('.')[0]}.${'x'.repeat(43)}`)).toBe(false);
    const stored = JSON.stringify(await raw.hgetall(`${names.redisPrefix}trusted-browser:{user:u1}`));
    expect(stored).not.toContain(token.split('.')[1]);
    expect(await raw.pttl(`${names.redisPrefix}trusted-browser:{user:u1}`)).toBeLessThanOrEqual(60_000);
    expect(await store.list('user', 'u1', 3)).toEqual([expect.objectContaining({ id: token.split('.')[0], ip: '203.0.113.1', userAgent: 'Firefox' })]);
    // Another epoch's are no longer listed, and are dropped when met.
    expect(await store.list('user', 'u1', 4)).toEqual([]);
    expect(await store.remove('user', 'u1', token.split('.')[0])).toBe(false);
  });

  it('keeps the newest ten of an account, and ends each with its life', async () => {
    const store = new RedisTrustedBrowsers(redis, { ttlMs: 60_000 });
    const tokens: string[] = [];
    for (let i = 0; i < 12; i++) tokens.push(await store.add('user', 'u2', 0, {}));
    const listed = (await store.list('user', 'u2', 0)).map((b) => b.id);
    expect(listed).toHaveLength(10);
    expect(await store.holds('user', 'u2', 0, tokens[11])).toBe(true);
    const short = new RedisTrustedBrowsers(redis, { ttlMs: 50 });
    const brief = await short.add('user', 'u3', 0, {});
    await new Promise((r) => setTimeout(r, 80));
    expect(await short.holds('user', 'u3', 0, brief)).toBe(false);
    expect(await store.remove('user', 'u2', listed[0])).toBe(true);
    expect(await store.remove('user', 'u2', listed[0])).toBe(false);
  });
});
