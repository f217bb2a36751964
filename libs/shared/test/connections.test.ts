import { MongoClient } from 'mongodb';
import { configFragments, createMemoryLogger, loadConfig } from '@acct/shared';
import { connectMongo, durabilityOptions, isMongoReady } from '@acct/shared/mongo';
import { closeRedis, connectRedis, isRedisReady } from '@acct/shared/redis';
import { AmqpClient, amqpNodeUrls } from '@acct/shared/amqp';
import { z } from 'zod';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';
import { until } from '@acct/test-harness/until';

describe('connection helpers against the real dependencies', () => {
  const { logger } = createMemoryLogger();
  const names = isolatedNames('conn');

  it('connects to Redis with a key prefix and reports ready', async () => {
    const redis = await connectRedis(testUrls().redis, logger, { keyPrefix: names.redisPrefix });
    try {
      expect(isRedisReady(redis)).toBe(true);
      await redis.set('k', 'v', 'EX', 10);
      expect(await redis.get('k')).toBe('v');
      await redis.del('k');
    } finally {
      // closeRedis, not quit: a client connectRedis made and that ends without being closed connects again.
      await closeRedis(redis);
    }
  });

  it('connects a Redis client again when ioredis gives it up without this process closing it', async () => {
    const { logger: own, records } = createMemoryLogger('info');
    const redis = await connectRedis(testUrls().redis, own, { keyPrefix: names.redisPrefix });
    try {
      // What a Sentinel client's failover detector does: the connector cut while a reconnect is
      // still connecting, which makes ioredis end the client for good.
      redis.once('connecting', () => redis.disconnect(true));
      redis.disconnect(true);
      await until(() => records.some((r) => r.message === 'Redis client ended without being closed; connecting again'), 5_000, 'the client ended');
      await until(() => redis.status === 'ready', 5_000, 'the client connected again');
      expect(await redis.ping()).toBe('PONG');
    } finally {
      await closeRedis(redis);
    }
    // Closed on purpose: it stays closed.
    await new Promise((r) => setTimeout(r, 500));
    expect(redis.status).toBe('end');
  });

  it('gives up on an unreachable Redis within its deadline with a clear message', async () => {
    await expect(connectRedis('redis://127.0.0.1:1', logger, { deadlineMs: 600 })).rejects.toThrow(/Could not connect to Redis/);
  });

  it('connects to MongoDB and reports ready', async () => {
    const mongo = await connectMongo(testUrls().mongo, logger, { dbName: names.mongoDb });
    try {
      expect(isMongoReady(mongo)).toBe(true);
      await mongo.collection('probe').insertOne({ a: 1 });
      expect(await mongo.collection('probe').countDocuments()).toBe(1);
      await mongo.dropDatabase();
    } finally {
      await mongo.close();
    }
  });

  it('drops a connection whose setups hang, and connects again, instead of never consuming', async () => {
    const { logger: own, records } = createMemoryLogger('info');
    const client = new AmqpClient(testUrls().amqp, own, { connectionName: names.id, setupTimeoutMs: 300 });
    let setups = 0;
    let dropped: Awaited<ReturnType<typeof import('amqplib').connect>> | undefined;
    // The first setup after a drop never answers (a queue declaration waiting on a dead leader).
    await client.use(async (connection) => {
      setups++;
      if (setups === 2) {
        await new Promise(() => undefined);
      }
      if (setups === 1) dropped = connection;
    });
    await client.start();
    try {
      (dropped as unknown as { connection: { stream: { destroy(err: Error): void } } }).connection.stream.destroy(new Error('simulated network failure'));
      await until(() => setups >= 3 && client.ready, 10_000, 'the client connected again past the hung setup');
      expect(records.some((r) => r.message === 'RabbitMQ reconnect failed' && /did not finish within 300 ms/.test(String(r.reason)))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('connects to RabbitMQ, runs its setups, and runs them again after the connection drops', async () => {
    const client = new AmqpClient(testUrls().amqp, logger, { connectionName: names.id });
    let setups = 0;
    let last: Awaited<ReturnType<typeof import('amqplib').connect>> | undefined;
    await client.use(async (connection) => {
      setups++;
      last = connection;
    });
    await client.start();
    try {
      expect(client.ready).toBe(true);
      expect(setups).toBe(1);
      // Simulate a broker-side drop: the transport closes under the client.
      (last as unknown as { connection: { stream: { destroy(err: Error): void } } }).connection.stream.destroy(new Error('simulated network failure'));
      const deadline = Date.now() + 10_000;
      while (setups < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(setups).toBe(2);
      expect(client.ready).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('writes to MongoDB with majority and journal, retryable, unless the URL says otherwise', async () => {
    const mongo = await connectMongo(testUrls().mongo, logger, { dbName: names.mongoDb });
    try {
      const options = mongo.getClient().options;
      expect(options.writeConcern).toMatchObject({ w: 'majority', journal: true, wtimeoutMS: 5_000 });
      expect(options.retryWrites).toBe(true);
      expect(options.retryReads).toBe(true);
      // The stand-in takes the write concern as a server does.
      await mongo.collection('probe').insertOne({ a: 1 });
      await mongo.dropDatabase();
    } finally {
      await mongo.close();
    }
    expect(durabilityOptions('mongodb://db/?w=1&retryWrites=false')).toEqual({ retryReads: true });
  });

  it('hands a replica set URL to the driver as given: its hosts, set name and the durability asked for', () => {
    const url = 'mongodb://u:p@m1:27017,m2:27017,m3:27017/auth?replicaSet=rs0&authSource=admin';
    const { options } = new MongoClient(url, durabilityOptions(url));
    expect(options.hosts.map(String)).toEqual(['m1:27017', 'm2:27017', 'm3:27017']);
    expect(options.replicaSet).toBe('rs0');
    expect(options.writeConcern).toMatchObject({ w: 'majority', journal: true });
    expect(options.retryWrites).toBe(true);
  });

  it('goes on to the next RabbitMQ node of AMQP_URL when one refuses, with a heartbeat asked for', async () => {
    const urls = `amqp://guest:guest@127.0.0.1:1,${testUrls().amqp}`;
    expect(amqpNodeUrls(urls).map((u) => new URL(u).searchParams.get('heartbeat'))).toEqual(['10', '10']);
    expect(amqpNodeUrls('amqp://h?heartbeat=30')).toEqual(['amqp://h?heartbeat=30']);
    for (let i = 0; i < 3; i++) {
      const client = new AmqpClient(urls, logger, { connectionName: names.id, deadlineMs: 10_000 });
      try {
        await client.start();
        expect(client.ready).toBe(true);
      } finally {
        await client.close();
      }
    }
  });

  it('refuses an AMQP_URL entry that is not amqp:// at start, naming it', () => {
    const schema = z.object(configFragments.events());
    expect(() => loadConfig(schema, { AMQP_URL: 'amqp://guest:secret@r1:5672,http://r2' })).toThrow(/AMQP_URL: expected amqp:\/\/ or amqps:\/\/, got http:\/\/ \(got "amqp:\/\/guest:\*\*\*@r1/);
  });
});
