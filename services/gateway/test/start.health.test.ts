// The gateway's readiness is its own: with auth and desktop unreachable it stays ready, and each
// request that needs them answers 503.
import { createMemoryLogger } from '@acct/shared';
import { loadGatewayConfig, startGateway } from '@acct/gateway';
import { health } from '@acct/test-harness/health';
import { call } from '@acct/test-harness/http-client';
import { testKeys } from '@acct/test-harness/keys';

describe('gateway service start', () => {
  it('when auth and desktop are down, then it is still ready, and a proxied route answers 503', async () => {
    const config = loadGatewayConfig({ HOST: '127.0.0.1', PORT: '0', HEALTH_PORT: '0', AUTH_URL: 'http://127.0.0.1:1', DESKTOP_URL: 'http://127.0.0.1:1', JWT_PUBLIC_KEY: testKeys().publicKey });
    const running = await startGateway(config, createMemoryLogger().logger, createMemoryLogger().logger);
    try {
      const ready = await health(running.healthPort, 'ready');
      expect(ready.status).toBe(200);
      const res = await call(`http://127.0.0.1:${running.port}`, 'POST', '/api/auth/user/login', { body: { email: 'a@example.com', password: 'x' } });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ success: false, code: 'service_unavailable' });
    } finally {
      expect(await running.stop()).toBe(true);
    }
  });
});
