import { createMemoryLogger } from '@acct/shared';
import { notifierSchema, startNotifier } from '@acct/notifier';
import { health } from '../../../test/harness/health';
import { isolatedNames, testUrls } from '../../../test/harness/isolation';

describe('notifier service start', () => {
  it('connects to its real RabbitMQ, Redis and MongoDB, reports ready, and stops cleanly', async () => {
    const names = isolatedNames('notifierstart');
    const urls = testUrls();
    const config = notifierSchema.parse({
      HEALTH_PORT: '0',
      MONGO_URL: urls.mongo,
      MONGO_DB: names.mongoDb,
      REDIS_URL: urls.redis,
      REDIS_PREFIX: names.redisPrefix,
      AMQP_URL: urls.amqp,
    });
    const running = await startNotifier(config, createMemoryLogger().logger);
    try {
      const ready = await health(running.healthPort, 'ready');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({ mongo: true, redis: true, amqp: true });
    } finally {
      expect(await running.stop()).toBe(true);
    }
  });
});
