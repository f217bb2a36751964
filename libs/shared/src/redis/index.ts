// @acct/shared/redis: the Redis connection (ioredis): reconnects forever, fails commands fast while down (so callers answer 503).
import Redis from 'ioredis';
import type { Logger } from 'pino';
import { redactUrl, retryUntil } from '../retry';
import { RevocationFeed } from './revocation-feed';

export type { Redis } from 'ioredis';

export interface RedisOptions {
  keyPrefix?: string;
  deadlineMs?: number;
}

export async function connectRedis(url: string, logger: Logger, options: RedisOptions = {}): Promise<Redis> {
  const client = new Redis(url, {
    keyPrefix: options.keyPrefix,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  let wasReady = false;
  client.on('ready', () => {
    if (wasReady) logger.info('Redis reconnected');
    wasReady = true;
  });
  client.on('error', (err) => {
    if (wasReady) logger.warn({ reason: err.message }, 'Redis connection error');
  });
  try {
    await waitUntilReady(client, url, logger, options.deadlineMs);
  } catch (err) {
    client.disconnect();
    throw err;
  }
  return client;
}

function waitUntilReady(client: Redis, url: string, logger: Logger, deadlineMs?: number): Promise<void> {
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
    { what: `Redis at ${redactUrl(url)}`, logger, deadlineMs },
  );
}

export const isRedisReady = (client: Redis) => client.status === 'ready';

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
export async function openRevocationFeed(config: RevocationFeedConfig, logger: Logger): Promise<RevocationFeed> {
  const follower = await connectRedis(config.REDIS_URL, logger);
  try {
    const reader = await connectRedis(config.REDIS_URL, logger);
    try {
      return await new RevocationFeed(follower, reader, logger, { stream: config.REVOCATION_STREAM, maxStalenessMs: config.REVOCATION_MAX_STALENESS_MS }).start();
    } catch (err) {
      reader.disconnect();
      throw err;
    }
  } catch (err) {
    follower.disconnect();
    throw err;
  }
}

