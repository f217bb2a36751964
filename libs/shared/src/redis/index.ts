// @acct/shared/redis: the Redis connection (ioredis), to one server, a Redis Cluster or a Sentinel
// group (topology.ts): reconnects forever, fails commands fast while down (so callers answer 503).
import type { Logger } from 'pino';
import { retryUntil } from '../retry';
import { RevocationFeed } from './revocation-feed';
import { closeRedis, createRedisClient, describeTopology, parseRedisUrl, wasClosedOnPurpose, type RedisClient } from './topology';

export type { RedisClient as Redis } from './topology';
export { parseRedisUrl, createRedisClient, closeRedis, describeTopology, type RedisClient, type RedisTopology } from './topology';

export interface RedisOptions {
  keyPrefix?: string;
  deadlineMs?: number;
}

export async function connectRedis(url: string, logger: Logger, options: RedisOptions = {}): Promise<RedisClient> {
  const topology = parseRedisUrl(url);
  const client = createRedisClient(topology, { keyPrefix: options.keyPrefix });
  let wasReady = false;
  let revivals = 0;
  client.on('ready', () => {
    if (wasReady) logger.info('Redis reconnected');
    wasReady = true;
    revivals = 0;
  });
  client.on('error', (err: Error) => {
    if (wasReady) logger.warn({ reason: err.message }, 'Redis connection error');
  });
  // ioredis gives a client up for good when a reconnect is cut short: a Sentinel client's failover
  // detector (or ioredis itself) disconnecting it while it still asks the sentinels for the master.
  // Every command then fails "Connection is closed." until the process restarts (redis/ioredis#1683;
  // seen here in the Sentinel failover run). A client this process did not close connects again.
  client.on('end', () => {
    if (!wasReady || wasClosedOnPurpose(client)) return;
    const delay = Math.min(200 * 2 ** revivals, 5_000);
    revivals += 1;
    logger.warn({ redis: describeTopology(topology), retry_in_ms: delay }, 'Redis client ended without being closed; connecting again');
    setTimeout(() => {
      if (!wasClosedOnPurpose(client)) client.connect().catch(() => undefined);
    }, delay).unref();
  });
  if (topology.kind === 'cluster') {
    client.on('+node', () => logger.debug('Redis Cluster node added'));
    client.on('-node', () => logger.info('Redis Cluster node removed'));
  }
  try {
    await waitUntilReady(client, describeTopology(topology), logger, options.deadlineMs);
  } catch (err) {
    await closeRedis(client);
    throw err;
  }
  return client;
}

function waitUntilReady(client: RedisClient, what: string, logger: Logger, deadlineMs?: number): Promise<void> {
  return retryUntil(
    async () => {
      if (client.status === 'ready') return;
      if (client.status === 'wait' || client.status === 'end') {
        await client.connect();
        return;
      }
      await new Promise<void>((resolve, reject) => {
        const onReady = () => (cleanup(), resolve());
        const onError = (err: Error) => (cleanup(), reject(err));
        const cleanup = () => (client.off('ready', onReady), client.off('error', onError));
        client.once('ready', onReady);
        client.once('error', onError);
      });
    },
    { what: `Redis (${what})`, logger, deadlineMs },
  );
}

export const isRedisReady = (client: RedisClient) => client.status === 'ready';

export * from './revocation-feed';

/** The variables of `configFragments.revocations()`, as every service that follows the feed has them. */
export interface RevocationFeedConfig {
  REDIS_URL: string;
  REVOCATION_STREAM: string;
  REVOCATION_MAX_STALENESS_MS: number;
}

/**
 * The replica's revocation feed, on two connections of its own (no key prefix: every service names
 * the same stream): loaded before it answers, then followed. `close()` stops it.
 */
export async function openRevocationFeed(config: RevocationFeedConfig, logger: Logger, options: { keepEntries?: boolean } = {}): Promise<RevocationFeed> {
  const follower = await connectRedis(config.REDIS_URL, logger);
  try {
    const reader = await connectRedis(config.REDIS_URL, logger);
    try {
      return await new RevocationFeed(follower, reader, logger, { stream: config.REVOCATION_STREAM, maxStalenessMs: config.REVOCATION_MAX_STALENESS_MS, keepEntries: options.keepEntries }).start();
    } catch (err) {
      await closeRedis(reader);
      throw err;
    }
  } catch (err) {
    await closeRedis(follower);
    throw err;
  }
}

