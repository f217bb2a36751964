import { generateKeyPairSync } from 'node:crypto';
import { createMemoryLogger } from '@acct/shared';
import { loadDesktopConfig, startDesktop } from '@acct/desktop';
import { health } from '@acct/test-harness/health';
import { isolatedServiceEnv } from '@acct/test-harness/isolation';

describe('desktop service start', () => {
  it('connects to its real MongoDB and RabbitMQ, reports ready, and stops cleanly', async () => {
    const config = loadDesktopConfig({
      ...isolatedServiceEnv('desktopstart'),
      PORT: '0',
      JWT_PUBLIC_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    const running = await startDesktop(config, createMemoryLogger().logger);
    try {
      const ready = await health(running.healthPort, 'ready');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({ mongo: true });
    } finally {
      expect(await running.stop()).toBe(true);
    }
  });
});
