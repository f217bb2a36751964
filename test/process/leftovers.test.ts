// The end-of-run check finds what a test file failed to remove, by the run's names, and nothing else.
import fs from 'node:fs';
import amqp from 'amqplib';
import Redis from 'ioredis';
import mongoose from 'mongoose';
import { issuedNamesFile, testUrls } from '@acct/test-harness/isolation';
import { findLeftovers } from '../setup/leftovers';

describe('the leftover check', () => {
  const run = `chk${Date.now().toString(36)}`;
  const names = { label: 'forgetful', id: 'forgetful1', mongoDb: `t${run}_forgetful1`, redisPrefix: `t${run}:forgetful1:`, exchange: `t${run}.forgetful1.auth.events`, queuePrefix: `t${run}.forgetful1.` };
  const urls = testUrls();

  afterAll(() => fs.rmSync(issuedNamesFile(run), { force: true }));

  it('when a file leaves a database, a key, an exchange and a queue behind, then it names each with the file; once removed, nothing', async () => {
    fs.writeFileSync(issuedNamesFile(run), `${JSON.stringify(names)}\n`);
    const redis = new Redis(urls.redis);
    const db = await mongoose.createConnection(urls.mongo, { dbName: names.mongoDb }).asPromise();
    const connection = await amqp.connect(urls.amqp);
    const channel = await connection.createChannel();
    try {
      await redis.set(`${names.redisPrefix}k`, '1');
      await db.collection('c').insertOne({ a: 1 });
      await channel.assertExchange(names.exchange, 'topic');
      await channel.assertQueue(`${names.queuePrefix}notifier.push`, { durable: true, arguments: { 'x-queue-type': 'quorum' } });

      expect((await findLeftovers(urls, run)).sort()).toEqual(
        [
          '1 Redis key(s) of forgetful',
          `database ${names.mongoDb} of forgetful`,
          `exchange ${names.exchange} of forgetful`,
          `queue ${names.queuePrefix}notifier.push of forgetful`,
        ].sort(),
      );
    } finally {
      await redis.del(`${names.redisPrefix}k`);
      await db.dropDatabase();
      await channel.deleteQueue(`${names.queuePrefix}notifier.push`);
      await channel.deleteExchange(names.exchange);
      await connection.close();
      await db.close();
      redis.disconnect();
    }
    expect(await findLeftovers(urls, run)).toEqual([]);
  });
});
