import { createMemoryLogger } from '@acct/shared';
import { loadNotifierConfig, startNotifier } from '@acct/notifier';
import { health } from '@acct/test-harness/health';
import { isolatedServiceEnv } from '@acct/test-harness/isolation';
import { notifierQueues } from '@acct/test-stack/notifier';

describe('notifier service start', () => {
  it('connects to its real RabbitMQ, Redis and MongoDB, reports ready, and stops cleanly', async () => {
    const isolated = isolatedServiceEnv('notifierstart');
    const config = loadNotifierConfig(isolated.env);
    const running = await startNotifier(config, createMemoryLogger().logger);
    try {
      const ready = await health(running.healthPort, 'ready');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({ mongo: true, redis: true, amqp: true });
    } finally {
      expect(await running.stop()).toBe(true);
      await isolated.cleanup({ queues: notifierQueues(config.QUEUE_PREFIX, config.RETRY_DELAYS_MS) });
    }
  });
});
