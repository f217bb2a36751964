// REDIS_URL's grammar (one server, a cluster, a Sentinel group), a Sentinel group's failover
// followed by the client with nothing to restart, and a closed Cluster client that stays closed.
import pino from 'pino';
import { configFragments, loadConfig } from '@acct/shared';
import { closeRedis, connectRedis, describeTopology, parseRedisUrl, type Redis } from '@acct/shared/redis';
import { startRedisCluster, startRedisSentinel, type RedisClusterServers, type RedisSentinelServers } from '@acct/test-harness/redis-servers';
import { until } from '@acct/test-harness/until';
import { scaled } from '@acct/test-harness/time-scale';
import { z } from 'zod';

describe('parseRedisUrl', () => {
  it('reads one server, a cluster and a Sentinel group, with their credentials', () => {
    expect(parseRedisUrl('redis://:pw@cache:6379/2')).toEqual({ kind: 'single', url: 'redis://:pw@cache:6379/2' });
    expect(parseRedisUrl('rediss+cluster://app:s%40cret@r1:7000,r2,[::1]:7002')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'r1', port: 7000 },
        { host: 'r2', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      auth: { username: 'app', password: 's@cret' },
      tls: true,
    });
    expect(parseRedisUrl('redis+sentinel://:pw@s1:26379,s2:26379,s3:26379/mymaster/3')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: 's3', port: 26379 },
      ],
      masterName: 'mymaster',
      db: 3,
      auth: { password: 'pw' },
      tls: false,
    });
  });

  it.each([
    ['http://r1:6379', /expected redis:\/\//],
    ['redis+cluster://r1:7000/1', /no path/],
    ['redis+sentinel://s1:26379', /names the master/],
    ['redis+sentinel://s1:26379/m/x', /master\/db/],
    ['redis+cluster://r1:99999', /not a port/],
    ['redis+cluster://r1:7000,,r2', /not a host:port/],
  ])('refuses %s with a reason', (url, reason) => {
    expect(() => parseRedisUrl(url)).toThrow(reason);
  });

  it('is the rule of every service’s REDIS_URL: a start with a bad one names it, without its password', () => {
    const schema = z.object(configFragments.redis('x:'));
    expect(() => loadConfig(schema, { REDIS_URL: 'redis+sentinel://:hunter2@s1:26379' })).toThrow(/REDIS_URL: a sentinel URL names the master.*\*\*\*@s1/);
    expect(loadConfig(schema, { REDIS_URL: 'redis+cluster://r1:7000' }).REDIS_URL).toBe('redis+cluster://r1:7000');
  });

  it('describes a topology for a log line without its password', () => {
    expect(describeTopology(parseRedisUrl('redis://:hunter2@cache:6379'))).not.toContain('hunter2');
    expect(describeTopology(parseRedisUrl('redis+sentinel://:hunter2@s1:1,s2:2/m'))).toBe('Redis master "m" via sentinels s1:1,s2:2');
  });
});

describe('against real servers', () => {
  // The servers these three groups use start together, before any of them runs: a Redis Cluster
  // takes about 7 s to be ready here and a Sentinel group 5 s (2026-11-30), 19 s one after another.
  let sentinelGroup: RedisSentinelServers;
  let liveCluster: RedisClusterServers;
  let doomedCluster: RedisClusterServers;
  const started: Array<{ stop(): Promise<void> }> = [];
  beforeAll(async () => {
    const starting = [startRedisSentinel(), startRedisCluster(), startRedisCluster()] as const;
    for (const result of await Promise.allSettled(starting)) if (result.status === 'fulfilled') started.push(result.value);
    [sentinelGroup, liveCluster, doomedCluster] = await Promise.all(starting);
  }, 60_000);
  /**
   * Stops the servers once each group closed its client. ioredis ends a connection whose socket a
   * killed node already closed with a 2 s fallback timer (AbstractConnector.disconnect) that nothing
   * clears: it is let run out, so the worker that ran this file can exit when jest asks it to rather
   * than being killed.
   */
  afterAll(async () => {
    await Promise.all(started.map((servers) => servers.stop()));
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  });

  describe('a Sentinel group', () => {
    let redis: Redis;
    const logger = pino({ level: 'silent' });

    beforeAll(async () => {
      redis = await connectRedis(sentinelGroup.url, logger, { keyPrefix: 'sentinel-test:' });
    }, 60_000);
    // closeRedis, not disconnect(): connectRedis connects again a client that ends without it.
    afterAll(() => redis && closeRedis(redis));

    it('follows a failover: a write a replica confirmed survives the master’s death, and writes go on to the new master', async () => {
      const group = sentinelGroup;
      const first = await group.masterPort();
      await redis.set('kept', 'yes');
      // The confirmation the session store waits for (REDIS_WAIT_REPLICAS).
      expect(await redis.call('WAIT', '1', '1000')).toBe(1);
      group.nodes.find((n) => n.port === first)!.kill();
      const promoted = await until(async () => {
        const port = await group.masterPort();
        return port !== first && port;
      }, 20_000, 'a replica promoted by the sentinels');
      const written = await until(async () => (await redis.set('after', '1').catch(() => undefined)) === 'OK', 20_000, 'a write after the failover');
      expect(written).toBe(true);
      expect(await redis.get('kept')).toBe('yes');
      expect(promoted).not.toBe(first);
    }, 60_000);
  });

  describe('a Redis Cluster client', () => {
    let redis: Redis | undefined;
    const logger = pino({ level: 'silent' });

    afterAll(async () => {
      if (redis) await closeRedis(redis);
    });

    it('refreshes no slots once closed, even when closed while a refresh of its slot map was under way', async () => {
      redis = await connectRedis(liveCluster.url, logger, { keyPrefix: 'cluster-close-test:' });
      // ioredis' internals: the refresh the slot map's interval starts every second, made 300 ms
      // slower so that the close lands inside one.
      const internals = redis as unknown as {
        isRefreshing: boolean;
        refreshSlotsCache: (callback?: (err?: Error) => void) => void;
        getInfoFromNode: (node: unknown, callback: (err?: Error) => void) => void;
      };
      const getInfoFromNode = internals.getInfoFromNode;
      internals.getInfoFromNode = function (node, callback) {
        getInfoFromNode.call(this, node, (err) => void setTimeout(() => callback(err), 300));
      };
      await until(() => internals.isRefreshing, 5_000, 'a refresh of the slot map by its interval');
      await closeRedis(redis);
      let refreshesAfterClose = 0;
      const refreshSlotsCache = internals.refreshSlotsCache;
      internals.refreshSlotsCache = function (callback) {
        refreshesAfterClose += 1;
        refreshSlotsCache.call(this, callback);
      };
      // The interval is 1 s (createRedisClient): a client still refreshing does so twice in this wait.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(refreshesAfterClose).toBe(0);
    }, 30_000);
  });

  describe('a Redis Cluster client while the whole cluster is down', () => {
    const logger = pino({ level: 'silent' });
    let redis: Redis | undefined;

    afterAll(async () => {
      if (redis) await closeRedis(redis);
    });

    it('fails each command fast (the caller answers 503), never waiting on a cluster that is not there', async () => {
      const servers = doomedCluster;
      redis = await connectRedis(servers.url, logger, { keyPrefix: 'cluster-down-test:' });
      await redis.set('k', 'before');
      for (const node of servers.nodes) node.kill();
      await until(() => servers.nodes.every((n) => !n.alive), 5_000, 'every node gone');
      // However the client learns it (its offline queue is off), no command waits on a cluster that is not there.
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        await expect(redis.get('k')).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(scaled(3_000));
      }
    }, 60_000);
  });
});
