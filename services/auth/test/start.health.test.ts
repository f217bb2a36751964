import { generateKeyPairSync } from 'node:crypto';
import { createMemoryLogger } from '@acct/shared';
import { loadAuthConfig, startAuth } from '@acct/auth';
import { health } from '@acct/test-harness/health';
import { isolatedServiceEnv } from '@acct/test-harness/isolation';

describe('auth service start', () => {
  it('connects to its real MongoDB, Redis and RabbitMQ, reports ready, and stops cleanly', async () => {
    const config = loadAuthConfig({
      ...isolatedServiceEnv('authstart'),
      PORT: '0',
      JWT_PRIVATE_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    const running = await startAuth(config, createMemoryLogger().logger);
    try {
      expect((await health(running.healthPort, 'live')).status).toBe(200);
      const ready = await health(running.healthPort, 'ready');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({ mongo: true, redis: true });
    } finally {
      expect(await running.stop()).toBe(true);
    }
  });

  it('refuses to start without a signing key, naming the variable, before connecting anywhere', async () => {
    const config = loadAuthConfig({ MONGO_URL: 'mongodb://127.0.0.1:1', REDIS_URL: 'redis://127.0.0.1:1', AMQP_URL: 'amqp://127.0.0.1:1' });
    await expect(startAuth(config, createMemoryLogger().logger)).rejects.toThrow(/^Invalid configuration: JWT_PRIVATE_KEY: /);
  });
});
