import { createMemoryLogger } from '@acct/shared';
import { loadAuthConfig, startAuth } from '@acct/auth';
import { health } from '@acct/test-harness/health';
import { isolatedServiceEnv } from '@acct/test-harness/isolation';
import { testKeys } from '@acct/test-harness/keys';

describe('auth service start', () => {
  it('connects to its real MongoDB, Redis and RabbitMQ, reports ready, and stops cleanly', async () => {
    const isolated = isolatedServiceEnv('authstart');
    const config = loadAuthConfig({ ...isolated.env, PORT: '0', JWT_PRIVATE_KEY: testKeys().privateKey });
    const running = await startAuth(config, createMemoryLogger().logger);
    try {
      expect((await health(running.healthPort, 'live')).status).toBe(200);
      const ready = await health(running.healthPort, 'ready');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({ mongo: true, redis: true });
    } finally {
      expect(await running.stop()).toBe(true);
      await isolated.cleanup();
    }
  });

  it('refuses to start without a signing key, naming the variable, before connecting anywhere', async () => {
    const config = loadAuthConfig({ MONGO_URL: 'mongodb://127.0.0.1:1', REDIS_URL: 'redis://127.0.0.1:1', AMQP_URL: 'amqp://127.0.0.1:1' });
    await expect(startAuth(config, createMemoryLogger().logger)).rejects.toThrow(/^Invalid configuration: JWT_PRIVATE_KEY: /);
  });
});
