import { generateKeyPairSync } from 'node:crypto';
import { createMemoryLogger } from '@acct/shared';
import { desktopSchema, startDesktop } from '@acct/desktop';
import { health } from '../../../test/harness/health';
import { isolatedNames, testUrls } from '../../../test/harness/isolation';

describe('desktop service start', () => {
  it('connects to its real MongoDB and RabbitMQ, reports ready, and stops cleanly', async () => {
    const names = isolatedNames('desktopstart');
    const config = desktopSchema.parse({
      PORT: '0',
      HEALTH_PORT: '0',
      MONGO_URL: testUrls().mongo,
      MONGO_DB: names.mongoDb,
      AMQP_URL: testUrls().amqp,
      JWT_PUBLIC_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    const running = await startDesktop(config, createMemoryLogger().logger);
    try {
      const ready = await health(running.healthPort, 'ready');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({ mongo: true, amqp: true });
    } finally {
      expect(await running.stop()).toBe(true);
    }
  });
});
