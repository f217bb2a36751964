// Copies of what an owner is shown, on the feed of account changes against real Redis: one replica's
// write is seen by another within a second (its copy is no longer used), the writer's own next read
// is the new value at once, a copy read across a change is never used, and a replica whose feed is
// past its bound reads the store on every call.
import Redis from 'ioredis';
import { createMemoryLogger } from '@acct/shared';
import { RevocationFeed } from '@acct/shared/redis';
import { deleteRedisPrefix, isolatedNames, testUrls } from '@acct/test-harness/isolation';
import { until } from '@acct/test-harness/until';
import { AccountCopies, AnnouncedAccounts } from '../src/data-access/account-copies';
import { MemoryAccounts } from './fakes';

const names = isolatedNames('copies');
const stream = `${names.redisPrefix}revocations:accounts`;
const clients: Redis[] = [];
const feeds: RevocationFeed[] = [];
let raw: Redis;

function client(): Redis {
  const redis = new Redis(testUrls().redis, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000 });
  redis.on('error', () => undefined);
  clients.push(redis);
  return redis;
}

/** A replica: its feed, its copies over the one shared store, and that store with every write announced. */
async function replica(store: MemoryAccounts, ttlMs = 30_000) {
  const feed = new RevocationFeed(client(), client(), createMemoryLogger('info').logger, { stream, maxStalenessMs: 1_000 });
  await until(() => clients.every((c) => c.status === 'ready'), 5_000, 'connections ready');
  feeds.push(await feed.start());
  const reads = { count: 0 };
  const counted = { findById: (id: string) => ((reads.count += 1), store.findById(id)) };
  const copies = new AccountCopies({ user: counted, admin: counted }, feed, { ttlMs, max: 100 });
  return { feed, copies, reads, accounts: new AnnouncedAccounts('user', store, copies) };
}

beforeAll(() => {
  raw = new Redis(testUrls().redis);
});
afterAll(async () => {
  await Promise.all(feeds.map((f) => f.stop()));
  await deleteRedisPrefix(raw, names.redisPrefix);
  await Promise.all([...clients, raw].map((c) => c.quit().catch(() => undefined)));
});

describe('AccountCopies', () => {
  it('serves a copy until another replica changes the account, then the new value within a second', async () => {
    const store = new MemoryAccounts();
    const user = (await store.create({ email: 'grace@example.com', name: 'Grace', passwordHash: null, role: 'user' })) as { id: string };
    const a = await replica(store);
    const b = await replica(store);
    expect((await a.copies.profileOf('user', user.id))?.name).toBe('Grace');
    expect((await a.copies.profileOf('user', user.id))?.name).toBe('Grace');
    expect(a.reads.count).toBe(1);

    await b.accounts.update(user.id, { name: 'Grace H' });
    // The writer reads its own write at once.
    expect((await b.copies.profileOf('user', user.id))?.name).toBe('Grace H');
    await until(async () => (await a.copies.profileOf('user', user.id))?.name === 'Grace H', 1_000, 'the other replica sees the change');
    // Within the change's window, the store is read every time and nothing is copied.
    const before = a.reads.count;
    await a.copies.profileOf('user', user.id);
    expect(a.reads.count).toBe(before + 1);
    expect(a.copies.size).toBe(0);
  });

  it('never keeps a copy read from the store while a change was announced', async () => {
    const store = new MemoryAccounts();
    const user = (await store.create({ email: 'ada@example.com', name: 'Ada', passwordHash: null, role: 'user' })) as { id: string };
    const a = await replica(store);
    // The store answers the old record, and the change is announced before the read returns.
    const slow = { findById: async (id: string) => {
      const old = await store.findById(id);
      await a.accounts.update(id, { name: 'Ada L' });
      return old;
    } };
    const racing = new AccountCopies({ user: slow, admin: slow }, a.feed, { ttlMs: 30_000, max: 100 });
    expect((await racing.profileOf('user', user.id))?.name).toBe('Ada');
    expect(racing.size).toBe(0);
  });

  it('reads the store on every call while the feed is past its bound, and a deleted account is gone', async () => {
    const store = new MemoryAccounts();
    const user = (await store.create({ email: 'bo@example.com', name: 'Bo', passwordHash: null, role: 'user' })) as { id: string };
    const a = await replica(store);
    await a.copies.profileOf('user', user.id);
    await a.feed.stop();
    await until(() => !a.feed.fresh, 3_000, 'the feed past its bound');
    const before = a.reads.count;
    await a.copies.profileOf('user', user.id);
    await a.copies.profileOf('user', user.id);
    expect(a.reads.count).toBe(before + 2);

    const b = await replica(store);
    await b.copies.profileOf('user', user.id);
    await b.accounts.remove(user.id);
    expect(await b.copies.profileOf('user', user.id)).toBeNull();
  });

  it('uses a copy no longer than its lifetime', async () => {
    const store = new MemoryAccounts();
    const user = (await store.create({ email: 'cy@example.com', name: 'Cy', passwordHash: null, role: 'user' })) as { id: string };
    const a = await replica(store, 200);
    await a.copies.profileOf('user', user.id);
    await a.copies.profileOf('user', user.id);
    expect(a.reads.count).toBe(1);
    await new Promise((r) => setTimeout(r, 250));
    await a.copies.profileOf('user', user.id);
    expect(a.reads.count).toBe(2);
  });
});
