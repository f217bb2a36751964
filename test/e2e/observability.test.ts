// What operators see: the request log, audit records and health. The metrics need a stack whose
// counters no other file moves, with a notifier: notifications.message-queue.test.ts holds them.

import { call } from '@acct/test-harness/http-client';
import { until } from '@acct/test-harness/until';
import { registerAndLogin } from '@acct/test-stack/stack';
import { sharedStack, type SharedStack } from '@acct/test-stack/shared';

describe('observability', () => {
  let stack: SharedStack;
  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(() => stack.stop());
  /** Once the request's record has come (on a busy machine it may take longer than a request), and a moment for any second one. */
  const settle = async (arrived: () => boolean) => {
    await until(arrived, 5_000, 'the log records');
    await new Promise((r) => setTimeout(r, 20));
  };

  describe('request log through the whole stack', () => {
    it('writes one record per request with actor fields from an admin session', async () => {
      const admin = await registerAndLogin(stack, 'admin');
      const id = `obs-${Date.now()}`;
      await call(stack.url, 'POST', '/api/auth/admin/forgot-password?utm=1', {
        body: { email: admin.account.email },
        headers: { authorization: `Bearer ${admin.accessToken}`, 'x-request-id': id },
      });
      await settle(() => stack.logs.request.some((r) => r.request_id === id));
      const records = stack.logs.request.filter((r) => r.request_id === id);
      expect(records).toHaveLength(1);
      expect(records[0]).toEqual({
        level: 'info',
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        method: 'POST',
        path: '/api/auth/admin/forgot-password?utm=1',
        status: 200,
        duration_ms: expect.any(Number),
        ip: '127.0.0.1',
        actor_type: 'admin',
        actor_id: admin.id,
        actor_role: 'admin',
        request_id: id,
        message: expect.stringMatching(/^POST \/api\/auth\/admin\/forgot-password\?utm=1 200 [\d.]+ms$/),
      });
    });

    it('passes the request id on to the events it causes', async () => {
      const id = `evt-${Date.now()}`;
      const { account } = await registerAndLogin(stack);
      await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password }, headers: { 'x-request-id': id } });
      const event = await stack.events.waitFor('user.login.succeeded', (p) => p.requestId === id);
      expect(event.payload.requestId).toBe(id);
    });

    it('never writes a password, token, code or cookie to any log', async () => {
      const user = await registerAndLogin(stack);
      const refreshed = await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${user.refresh}` });
      await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: 'the wrong password' } });
      await call(stack.url, 'POST', '/api/auth/user/reset-password?token=leaky-token-value', { body: { token: 'leaky-token-value', newPassword: 'leaky-new-password' } });
      await call(stack.url, 'POST', '/api/auth/user/reset-password?TOKEN=leaky-upper-token&newPassword=leaky-query-password&t%6Fken=leaky-encoded', { body: {} });
      await settle(() => JSON.stringify(stack.logs.request).includes('token=[redacted]'));
      const everything = JSON.stringify([stack.logs.request, stack.logs.audit, stack.logs.service]);
      for (const secret of [user.account.password, 'the wrong password', user.refresh, user.accessToken, refreshed.body.data.accessToken, 'leaky-token-value', 'leaky-new-password', 'leaky-upper-token', 'leaky-query-password', 'leaky-encoded']) {
        expect(everything).not.toContain(secret);
      }
      expect(everything).toContain('token=[redacted]');
      expect(everything).toContain('TOKEN=[redacted]&newPassword=[redacted]');
    });
  });
});
