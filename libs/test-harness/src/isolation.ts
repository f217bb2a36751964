// Per-test-file names so that files run in parallel, in any order, and leave nothing behind: a
// database, a Redis key prefix, an exchange and a queue prefix, all unique to one file and all
// carrying the run's id (TEST_RUN_ID, set by the global setup), so the end-of-run check finds
// whatever a file failed to remove, and nothing of another run or of a stack running beside it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectAnyNode } from '@acct/shared/amqp';
import { parseRedisUrl, type Redis } from '@acct/shared/redis';
import IORedis, { Cluster } from 'ioredis';
import mongoose from 'mongoose';

export interface TestNames {
  id: string;
  /** The database name; a stack's services add `_auth`, `_desktop`, `_notifier`. */
  mongoDb: string;
  redisPrefix: string;
  exchange: string;
  queuePrefix: string;
}

/** The id every name of this test run carries. */
export function testRunId(): string {
  return process.env.TEST_RUN_ID ?? 'solo';
}

/** The marker that begins every name this run makes: databases `t<run>_…`, keys `t<run>:…`, broker objects `t<run>.…`. */
export const runMarker = (run = testRunId()) => ({ mongoDb: `t${run}_`, redis: `t${run}:`, amqp: `t${run}.` });

/** Where this run records every set of names it hands out, for the end-of-run check. */
export const issuedNamesFile = (run = testRunId()) => path.join(os.tmpdir(), `acct-test-run-${run}.jsonl`);

export function isolatedNames(label: string): TestNames {
  const id = `${label.replace(/[^a-z0-9]/gi, '').slice(0, 20)}${randomBytes(4).toString('hex')}`;
  const marker = runMarker();
  const names = {
    id,
    mongoDb: `${marker.mongoDb}${id}`,
    redisPrefix: `${marker.redis}${id}:`,
    exchange: `${marker.amqp}${id}.auth.events`,
    queuePrefix: `${marker.amqp}${id}.`,
  };
  fs.appendFileSync(issuedNamesFile(), `${JSON.stringify({ label, ...names })}\n`);
  return names;
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

/**
 * A test's own Redis client for a REDIS_URL of any topology (one server, cluster, Sentinel), with
 * the offline queue on: a test's first command waits for the connection.
 */
export function openTestRedis(url = testUrls().redis, options: { keyPrefix?: string; lazyConnect?: boolean } = {}): Redis {
  const topology = parseRedisUrl(url);
  const common = { keyPrefix: options.keyPrefix, lazyConnect: options.lazyConnect, maxRetriesPerRequest: 2 };
  const client =
    topology.kind === 'single'
      ? new IORedis(url, common)
      : topology.kind === 'cluster'
        ? new Cluster(topology.nodes, { keyPrefix: options.keyPrefix, lazyConnect: options.lazyConnect, redisOptions: { ...topology.auth } })
        : new IORedis({ ...common, sentinels: topology.sentinels, name: topology.masterName, db: topology.db, ...topology.auth, sentinelPassword: topology.auth.password });
  // A node killed on purpose (the failover tests) makes connection errors: a command fails with
  // its own error; the event itself is expected, not worth a console line.
  return client.on('error', () => undefined);
}

/** A store test's Redis: a client under the file's own key prefix, one without it (keys as stored), and their cleanup. */
export interface IsolatedRedis {
  names: TestNames;
  redis: IORedis;
  raw: IORedis;
  /** Deletes every key under the prefix and closes both clients. */
  close(): Promise<void>;
}

export function isolatedRedis(label: string): IsolatedRedis {
  const names = isolatedNames(label);
  const redis = new IORedis(testUrls().redis, { keyPrefix: names.redisPrefix });
  const raw = new IORedis(testUrls().redis);
  return {
    names,
    redis,
    raw,
    async close() {
      await deleteRedisPrefix(raw, names.redisPrefix);
      await redis.quit();
      await raw.quit();
    },
  };
}

/** Every key matching `pattern`, on every master of a cluster or on the one server (the client must not have a keyPrefix of its own). */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const keys: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
  }
  return keys;
}

/** Deletes every key under a prefix (the client must not have a keyPrefix of its own). */
export async function deleteRedisPrefix(redis: Redis, prefix: string): Promise<void> {
  // One key a command: a cluster refuses a DEL whose keys span slots.
  for (const key of await scanKeys(redis, `${prefix}*`)) await redis.del(key);
}

/**
 * Removes what a test file made under its names: the databases (`mongoDb` and those named after it),
 * the Redis keys under its prefix, the queues it names and its exchange.
 */
export async function removeIsolated(names: TestNames, options: { queues?: string[] } = {}): Promise<void> {
  const urls = testUrls();
  const redis = openTestRedis(urls.redis, { lazyConnect: true });
  try {
    await redis.connect();
    await deleteRedisPrefix(redis, names.redisPrefix);
  } finally {
    redis.disconnect();
  }
  const mongo = await mongoose.createConnection(urls.mongo).asPromise();
  try {
    const { databases } = await mongo.db!.admin().listDatabases();
    for (const { name } of databases.filter((d: { name: string }) => d.name === names.mongoDb || d.name.startsWith(`${names.mongoDb}_`))) {
      await mongo.useDb(name, { useCache: false }).dropDatabase();
    }
  } finally {
    await mongo.close();
  }
  const connection = await connectAnyNode(urls.amqp);
  try {
    const channel = await connection.createChannel();
    for (const queue of options.queues ?? []) await channel.deleteQueue(queue);
    await channel.deleteExchange(names.exchange);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** The environment of one service under test, its own database, key prefix, exchange and queue prefix, and how to remove them. */
export function isolatedServiceEnv(label: string): { env: Record<string, string>; names: TestNames; cleanup: (options?: { queues?: string[] }) => Promise<void> } {
  const names = isolatedNames(label);
  const urls = testUrls();
  return {
    names,
    env: {
      HEALTH_PORT: '0',
      MONGO_URL: urls.mongo,
      MONGO_DB: names.mongoDb,
      REDIS_URL: urls.redis,
      REDIS_PREFIX: names.redisPrefix,
      AMQP_URL: urls.amqp,
      EVENTS_EXCHANGE: names.exchange,
      QUEUE_PREFIX: names.queuePrefix,
    },
    cleanup: (options) => removeIsolated(names, options),
  };
}

/** The Redis key of the recent proof of the session an access token names (`step-up:{<sid>}`). */
export function stepUpKeyOf(stack: { names: TestNames }, accessToken: string): string {
  const { sid } = JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString('utf8')) as { sid: string };
  return `${stack.names.redisPrefix}step-up:{${sid}}`;
}

/**
 * The recent proof of the session an access token names runs out (as after STEP_UP_SECONDS): its
 * key goes, and no other session's, so files sharing a stack keep theirs.
 */
export async function proofRunsOut(stack: { redis: Redis; names: TestNames }, accessToken: string): Promise<void> {
  await stack.redis.del(stepUpKeyOf(stack, accessToken));
}
