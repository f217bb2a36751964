// Per-test-file names so that files run in parallel and leave nothing behind: a database, a Redis
// key prefix, an exchange and a queue prefix, all unique to one file.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface TestNames {
  id: string;
  mongoDb: string;
  redisPrefix: string;
  exchange: string;
  queuePrefix: string;
}

export function isolatedNames(label: string): TestNames {
  const id = `${label.replace(/[^a-z0-9]/gi, '').slice(0, 20)}${randomBytes(4).toString('hex')}`;
  return {
    id,
    mongoDb: `t_${id}`,
    redisPrefix: `t:${id}:`,
    exchange: `t.${id}.auth.events`,
    queuePrefix: `t.${id}.`,
  };
}

export const testUrls = () => ({
  mongo: required('MONGO_URL'),
  redis: required('REDIS_URL'),
  amqp: required('AMQP_URL'),
});

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest's global setup (npm test)`);
  return value;
}

/** Deletes every key under a prefix (the client must not have a keyPrefix of its own). */
export async function deleteRedisPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}

/** The environment of one service under test: free ports, this run's servers, its own database and key prefix. */
export function isolatedServiceEnv(label: string): Record<string, string> {
  const names = isolatedNames(label);
  const urls = testUrls();
  return {
    HEALTH_PORT: '0',
    MONGO_URL: urls.mongo,
    MONGO_DB: names.mongoDb,
    REDIS_URL: urls.redis,
    REDIS_PREFIX: names.redisPrefix,
    AMQP_URL: urls.amqp,
  };
}
