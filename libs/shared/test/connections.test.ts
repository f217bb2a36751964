import { createMemoryLogger } from '@acct/shared';
import { connectMongo, isMongoReady } from '@acct/shared/mongo';
import { connectRedis, isRedisReady } from '@acct/shared/redis';
import { AmqpClient } from '@acct/shared/amqp';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';

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
      await redis.quit();
    }
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
});
