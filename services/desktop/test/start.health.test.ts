import { createMemoryLogger } from '@acct/shared';
import { accountEventsQueue, loadDesktopConfig, startDesktop } from '@acct/desktop';
import { health } from '@acct/test-harness/health';
import { isolatedServiceEnv } from '@acct/test-harness/isolation';
import { testKeys } from '@acct/test-harness/keys';

describe('desktop service start', () => {
  it('connects to its real MongoDB and RabbitMQ, reports ready, and stops cleanly', async () => {
    const isolated = isolatedServiceEnv('desktopstart');
    const config = loadDesktopConfig({ ...isolated.env, PORT: '0', JWT_PUBLIC_KEY: testKeys().publicKey });
    const running = await startDesktop(config, createMemoryLogger().logger);
    try {
      const ready = await health(running.healthPort, 'ready');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({ mongo: true });
    } finally {
      expect(await running.stop()).toBe(true);
      await isolated.cleanup({ queues: [accountEventsQueue(config.QUEUE_PREFIX)] });
    }
  });
});
