// The revocation feed against real Redis: what one replica publishes, every other knows within a
// second and answers from memory; a replica started later loads it before it is ready; a replica
// whose feed is cut reads the store per check past its bound, refuses while it cannot, and catches up.
import Redis from 'ioredis';
import { createMemoryLogger, createRegistry } from '@acct/shared';
import { assertSessionLive } from '@acct/shared';
import { RevocationFeed, compareIds } from '@acct/shared/redis';
import { deleteRedisPrefix, isolatedNames, testUrls } from '@acct/test-harness/isolation';
import { startTcpProxy, type TcpProxy } from '@acct/test-harness/tcp-proxy';
import { until } from '@acct/test-harness/until';
import { scaled } from '@acct/test-harness/time-scale';

const names = isolatedNames('revfeed');
const stream = `${names.redisPrefix}revocations`;
// The production default: under a loaded CI machine a tighter bound makes replicas stale between reads.
const BOUND_MS = 1_000;
const RETENTION = { retentionMs: 60_000 };
let raw: Redis;
const opened: RevocationFeed[] = [];
const clients: Redis[] = [];
const proxies: TcpProxy[] = [];

function client(url = testUrls().redis): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000, retryStrategy: () => 100 });
  redis.on('error', () => undefined);
  clients.push(redis);
  return redis;
}

/** A replica's feed; `follow` and `read` may go through proxies the test cuts. */
async function replica(urls: { follow?: string; read?: string; stream?: string } = {}) {
  const memory = createMemoryLogger('info');
  const feed = new RevocationFeed(client(urls.follow), client(urls.read), memory.logger, { stream: urls.stream ?? stream, maxStalenessMs: BOUND_MS });
  await until(() => clients.every((c) => c.status === 'ready'), 5_000, 'connections ready');
  opened.push(feed);
  return { feed: await feed.start(), records: memory.records };
}

const sid = () => Math.random().toString(36).slice(2).padEnd(22, 'x').slice(0, 22);

beforeAll(() => {
  raw = new Redis(testUrls().redis);
});
afterEach(async () => {
  for (const feed of opened.splice(0)) await feed.stop();
  for (const proxy of proxies.splice(0)) await proxy.close();
  for (const redis of clients.splice(0)) redis.disconnect();
});
afterAll(async () => {
  await deleteRedisPrefix(raw, names.redisPrefix);
  await raw.quit();
});

describe('the revocation feed', () => {
  it('when one replica publishes an ending, then another refuses the session from memory within a second, and other sessions stay live', async () => {
    const auth = await replica();
    const gateway = await replica();
    const [ended, live] = [sid(), sid()];
    expect(await gateway.feed.isRevoked(ended)).toBe(false);
    const published = Date.now();
    await auth.feed.publish([ended], RETENTION);
    expect(await auth.feed.isRevoked(ended)).toBe(true);
    await until(async () => (await gateway.feed.isRevoked(ended)) === true, 1_000, 'the other replica knows');
    expect(Date.now() - published).toBeLessThan(scaled(1_000));
    expect(await gateway.feed.isRevoked(live)).toBe(false);
  });

  it('when a replica starts after endings were published, then it holds them before it answers', async () => {
    const auth = await replica();
    const ended = [sid(), sid(), sid()];
    await auth.feed.publish(ended, RETENTION);
    const late = await replica();
    for (const id of ended) expect(await late.feed.isRevoked(id)).toBe(true);
  });

  it('when an ending outlives every token it could stop, then it is neither loaded nor kept', async () => {
    const own = { stream: `${stream}:brief` };
    const auth = await replica(own);
    const [brief, lasting] = [sid(), sid()];
    await auth.feed.publish([brief], { retentionMs: 150 });
    await auth.feed.publish([lasting], RETENTION);
    await new Promise((r) => setTimeout(r, 400));
    auth.feed.sweep();
    expect(await auth.feed.isRevoked(brief)).toBe(false);
    expect(await auth.feed.isRevoked(lasting)).toBe(true);
    expect(auth.feed.size).toBe(1);
    const late = await replica(own);
    expect(await late.feed.isRevoked(brief)).toBe(false);
    expect(late.feed.size).toBe(1);
  });

  it('when its feed is cut, then past the bound a check reads the store, says so in the log and metrics, and the replica catches up when the feed returns', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(testUrls().redis).port || 6379) });
    proxies.push(proxy);
    const auth = await replica();
    const cutOff = await replica({ follow: proxy.url('redis') });
    const registry = createRegistry('test');
    cutOff.feed.registerMetrics(registry);
    await proxy.cut();
    const [ended, later] = [sid(), sid()];
    await auth.feed.publish([ended], RETENTION);
    const cutAt = Date.now();
    // Within the bound the replica may not know yet; past it, the check reads the store.
    await until(() => !cutOff.feed.fresh, BOUND_MS + 2_000, 'the feed goes stale');
    const verdict = cutOff.feed.isRevoked(ended);
    expect(verdict).toBeInstanceOf(Promise);
    expect(await verdict).toBe(true);
    expect(Date.now() - cutAt).toBeLessThan(BOUND_MS + scaled(1_000));
    expect(cutOff.records.some((r) => r.level === 'warn' && /Revocation feed behind its bound/.test(String(r.message)))).toBe(true);
    expect(await registry.getSingleMetricAsString('revocation_fallback_reads_total')).toMatch(/revocation_fallback_reads_total\{service="test"\} [1-9]/);
    await proxy.restore();
    await auth.feed.publish([later], RETENTION);
    await until(() => cutOff.feed.fresh && cutOff.feed.isRevoked(later) === true, 5_000, 'the feed caught up');
    expect(cutOff.records.some((r) => /Revocation feed caught up/.test(String(r.message)))).toBe(true);
  });

  it('when the store cannot be read either, then a check past the bound is refused (503), never let through', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(testUrls().redis).port || 6379) });
    proxies.push(proxy);
    const isolated = await replica({ follow: proxy.url('redis'), read: proxy.url('redis') });
    await proxy.cut();
    await until(() => !isolated.feed.fresh, BOUND_MS + 2_000, 'the feed goes stale');
    await expect(assertSessionLive(isolated.feed, { sub: 'u', kind: 'user', role: 'user', sid: sid() })).rejects.toMatchObject({ code: 'service_unavailable' });
    await proxy.restore();
    await until(() => isolated.feed.fresh, 5_000, 'the feed is back');
    await expect(assertSessionLive(isolated.feed, { sub: 'u', kind: 'user', role: 'user', sid: sid() })).resolves.toBeUndefined();
  });

  it('orders stream ids by time, then sequence', () => {
    expect(compareIds('1700000000000-1', '1700000000000-0')).toBe(1);
    expect(compareIds('999-5', '1000-0')).toBe(-1);
    expect(compareIds('1000-2', '1000-2')).toBe(0);
  });
});
