// What operators see: the request log, audit records, metrics and health.

import { call } from '@acct/test-harness/http-client';
import { registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';
import { sharedStack, type SharedStack } from '@acct/test-stack/shared';
import { until } from '@acct/test-harness/until';

describe('observability', () => {
  let stack: SharedStack;
  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(() => stack.stop());
  const settle = () => new Promise((r) => setTimeout(r, 20));

  describe('request log through the whole stack', () => {
    it('writes one record per request with actor fields from an admin session', async () => {
      const admin = await registerAndLogin(stack, 'admin');
      const id = `obs-${Date.now()}`;
      await call(stack.url, 'POST', '/api/auth/admin/forgot-password?utm=1', {
        body: { email: admin.account.email },
        headers: { authorization: `Bearer ${admin.accessToken}`, 'x-request-id': id },
      });
      await settle();
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
      await settle();
      const everything = JSON.stringify([stack.logs.request, stack.logs.audit, stack.logs.service]);
      for (const secret of [user.account.password, 'the wrong password', user.refresh, user.accessToken, refreshed.body.data.accessToken, 'leaky-token-value', 'leaky-new-password', 'leaky-upper-token', 'leaky-query-password', 'leaky-encoded']) {
        expect(everything).not.toContain(secret);
      }
      expect(everything).toContain('token=[redacted]');
      expect(everything).toContain('TOKEN=[redacted]&newPassword=[redacted]');
    });
  });
});

// Prometheus metrics on each service's health port, never on the public port: a login, a refresh,
// a failed login and a login push move the counters a dashboard would watch, and no label carries
// an email, an id or a token.
describe('metrics', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack('metrics', { notifier: true });
  });
  afterAll(() => stack.stop());

  async function scrape(healthPort: number): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${healthPort}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    return res.text();
  }

  /** The value of one series (`name{label="v",…}`), labels in any order; 0 when absent. */
  function value(text: string, name: string, labels: Record<string, string>): number {
    for (const line of text.split('\n')) {
      const match = /^([a-z_:]+)\{([^}]*)\} (\S+)$/.exec(line);
      if (!match || match[1] !== name) continue;
      const have = Object.fromEntries([...match[2].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(match[3]);
    }
    return 0;
  }

  describe('GET /metrics on the health ports', () => {
    it('moves the login, refresh, HTTP and upstream counters, and the notifier event counters', async () => {
      const auth = stack.running.auth.healthPort;
      const gateway = stack.running.gateway.healthPort;
      const before = { auth: await scrape(auth), gateway: await scrape(gateway), notifier: await scrape(stack.notifier!.running.healthPort) };

      const user = await registerAndLogin(stack);
      await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: 'not the password' } });
      await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${user.refresh}` });

      const after = await scrape(auth);
      expect(value(after, 'auth_logins_total', { kind: 'user', outcome: 'success' }) - value(before.auth, 'auth_logins_total', { kind: 'user', outcome: 'success' })).toBe(1);
      expect(value(after, 'auth_logins_total', { kind: 'user', outcome: 'invalid_credentials' }) - value(before.auth, 'auth_logins_total', { kind: 'user', outcome: 'invalid_credentials' })).toBe(1);
      expect(value(after, 'auth_refreshes_total', { kind: 'user', outcome: 'rotated' }) - value(before.auth, 'auth_refreshes_total', { kind: 'user', outcome: 'rotated' })).toBe(1);
      expect(value(after, 'http_requests_total', { route: '/api/auth/user/login', method: 'POST', status: '200', service: 'auth' })).toBeGreaterThanOrEqual(1);
      expect(after).toMatch(/^auth_bcrypt_queue_length\{service="auth"\} \d+$/m);
      expect(after).toMatch(/^outbox_pending_events\{service="auth"\} \d+$/m);
      expect(after).toMatch(/^process_cpu_seconds_total\{service="auth"\} /m);
      // The event loop's delay is still measured (sampled every EVENT_LOOP_SAMPLE_MS, not every 10 ms).
      expect(after).toMatch(/^nodejs_eventloop_lag_p99_seconds\{service="auth"\} \d/m);

      const gatewayAfter = await scrape(gateway);
      const logins = (t: string) => value(t, 'http_requests_total', { route: '/api/auth/user/login', method: 'POST', status: '200', service: 'gateway' });
      expect(logins(gatewayAfter) - logins(before.gateway)).toBe(1);
      const loginLabels = { route: '/api/auth/user/login', method: 'POST', status: '200', service: 'gateway' };
      expect(value(gatewayAfter, 'http_request_duration_seconds_count', loginLabels)).toBe(logins(gatewayAfter));
      expect(value(gatewayAfter, 'http_request_duration_seconds_bucket', { ...loginLabels, le: '+Inf' })).toBe(logins(gatewayAfter));
      expect(value(gatewayAfter, 'http_request_duration_seconds_sum', loginLabels)).toBeGreaterThan(0);
      const answered = (t: string) => value(t, 'gateway_upstream_requests_total', { upstream: 'auth', outcome: 'answered' });
      expect(answered(gatewayAfter) - answered(before.gateway)).toBe(4);

      // The login push: the notifier counts the event it handled (no device: no_devices).
      const pushed = (t: string) => value(t, 'notifier_events_total', { type: 'user.login.succeeded', outcome: 'no_devices' });
      await until(async () => pushed(await scrape(stack.notifier!.running.healthPort)) - pushed(before.notifier) >= 1, 10_000);

      // No label value is an email, an id or a token.
      for (const text of [after, gatewayAfter]) {
        expect(text).not.toContain(user.account.email);
        expect(text).not.toContain(user.id);
        expect(text).not.toContain(user.refresh.split('.')[0]);
      }
    });

    it('is not served on the public port', async () => {
      const res = await call(stack.url, 'GET', '/metrics');
      expect(res.status).toBe(404);
    });

    it('counts a parameterised route under its template, never under the raw path', async () => {
      const admin = await registerAndLogin(stack, 'admin');
      const userId = '0123456789abcdef01234567';
      await call(stack.url, 'GET', `/api/admin/users/${userId}`, { headers: { authorization: `Bearer ${admin.accessToken}` } });

      const gateway = await scrape(stack.running.gateway.healthPort);
      const auth = await scrape(stack.running.auth.healthPort);
      expect(value(gateway, 'http_requests_total', { route: '/api/admin/users/:userId', method: 'GET', status: '404' })).toBeGreaterThanOrEqual(1);
      expect(value(auth, 'http_requests_total', { route: '/api/admin/users/:userId', method: 'GET', status: '404' })).toBeGreaterThanOrEqual(1);
      expect(gateway).not.toContain(userId);
      expect(auth).not.toContain(userId);
    });
  });
});
