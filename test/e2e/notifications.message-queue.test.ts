// What reaches the queue and the devices: login pushes, admin codes, device tokens, one-time codes;
// and what the services count of it all (Prometheus metrics on their health ports).

import fs from 'node:fs';
import path from 'node:path';
import { call, cookieValue } from '@acct/test-harness/http-client';
import { until } from '@acct/test-harness/until';
import { decodeQuotedPrintable } from '@acct/test-harness/smtp';
import { buildAccount, registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';
import { randomBytes } from 'node:crypto';

// One stack for the file: admins get the mailed code by default, an account keeps three live
// sessions, and a notifier delivers to a mail folder and a recording push sender.
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('notifications', { notifier: true, auth: { ADMIN_2FA_DEFAULT: 'true', ADMIN_REGISTRATION_OPEN: 'true', SESSION_MAX_PER_ACCOUNT: '3' } });
});
afterAll(() => stack.stop());

/** Registers a 2FA admin and logs in: answers the challenge token and the code mailed through the bus. */
async function challenge() {
  const admin = buildAccount();
  const registered = await call(stack.url, 'POST', '/api/auth/admin/register', { body: admin });
  const adminId = registered.body.data.admin.id as string;
  const login = await call(stack.url, 'POST', '/api/auth/admin/login', { body: { email: admin.email, password: admin.password } });
  const event = await stack.events.waitFor('admin.otp.requested', (p) => p.adminId === adminId);
  return { admin, adminId, login, token: login.body.data.challenge_token as string, code: event.payload.code as string, event };
}

/** Registers an admin and signs it in with the code mailed through the bus: answers its access token. */
async function signedInAdmin(): Promise<string> {
  const { token, code } = await challenge();
  const verified = await call(stack.url, 'POST', '/api/auth/verify-otp', { body: { challenge_token: token, code } });
  if (verified.status !== 200) throw new Error(`verify-otp answered ${verified.status}: ${verified.text}`);
  return verified.body.data.accessToken as string;
}

// End to end: account routes → outbox → RabbitMQ → notifier → push and mail.
describe('notifications.message-queue', () => {
  const mails = () =>
    fs.readdirSync(stack.notifier!.mailDir).map((f) => decodeQuotedPrintable(fs.readFileSync(path.join(stack.notifier!.mailDir, f), 'utf8')));

  describe('notifications from the running stack', () => {
    it('a user login sends the login push to the user’s device, and the login answer does not wait for it', async () => {
      const account = buildAccount();
      const registered = await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
      const userId = registered.body.data.user.id;
      await stack.notifier!.publisher.publish('device.registered', { userId, deviceId: 'laptop', platform: 'linux', pushToken: 'fcm-token-1' });
      await until(() => stack.notifier!.logs.some((r) => r.event_type === 'device.registered' && r.outcome === 'stored'));
      const before = Date.now();
      const login = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } });
      expect(login.status).toBe(200);
      await until(() => stack.notifier!.push.sent.some((s) => s.tokens.includes('fcm-token-1')), 5_000, 'login push');
      const push = stack.notifier!.push.sent.find((s) => s.tokens.includes('fcm-token-1'))!;
      expect(push.notification).toMatchObject({ title: 'Login Successful', body: 'You have logged in successfully.', category: 'GENERAL', data: { event: 'login' } });
      expect(push.at).toBeGreaterThanOrEqual(before);
    });

    it('forgot-password puts a reset mail with the link into the mail folder', async () => {
      const { account } = await registerAndLogin(stack);
      await call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email: account.email } });
      await until(() => mails().some((m) => m.includes(`To: ${account.email}`)), 5_000, 'reset mail');
      const mail = mails().find((m) => m.includes(`To: ${account.email}`))!;
      expect(mail).toMatch(/Subject: Reset your Account Service password/);
      expect(mail).toMatch(/reset-password\?token=[A-Za-z0-9_-]{43}/);
    });

    it('an admin login with a second factor mails the code, which then logs the admin in', async () => {
      const admin = buildAccount();
      await call(stack.url, 'POST', '/api/auth/admin/register', { body: admin });
      const login = await call(stack.url, 'POST', '/api/auth/admin/login', { body: { email: admin.email, password: admin.password } });
      expect(login.body.data.requires_2fa).toBe(true);
      await until(() => mails().some((m) => m.includes(`To: ${admin.email}`)), 5_000, 'code mail');
      const code = /sign-in code is:\s+(\d{6})/.exec(mails().find((m) => m.includes(`To: ${admin.email}`))!)?.[1];
      expect(code).toMatch(/^\d{6}$/);
      const verified = await call(stack.url, 'POST', '/api/auth/verify-otp', { body: { challenge_token: login.body.data.challenge_token, code } });
      expect(verified.status).toBe(200);
    });
  });
});

// A device's push token belongs to the session that registered it through sync: when that session
// ends (logout, sign-out, a reset, a disable, the cap on live sessions), the owner's login pushes
// stop going to it. The whole path runs: desktop's outbox, the broker, the notifier's store.
describe('devices.security', () => {
  let adminToken: string;
  beforeAll(async () => {
    adminToken = await signedInAdmin();
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const pushesTo = (token: string) => stack.notifier!.push.sent.filter((s) => s.tokens.includes(token)).length;

  /** Registers a device with a fresh push token through sync, and waits until the notifier stored it. */
  async function registerDevice(accessToken: string, userId: string): Promise<string> {
    const pushToken = `fcm-${randomBytes(6).toString('hex')}`;
    const device = { id: `device-${pushToken}`, platform: 'linux', appVersion: '1.0.0', pushToken };
    expect((await call(stack.url, 'POST', '/api/desktop/sync', { body: { device, cursor: '0', changes: [] }, headers: bearer(accessToken) })).status).toBe(200);
    await until(() => stack.notifier!.logs.some((r) => r.event_type === 'device.registered' && r.outcome === 'stored' && stack.events.received.some((e) => e.messageId === r.event_id && e.payload.userId === userId)), 5_000, 'the device stored');
    return pushToken;
  }

  const loginEventsOf = (userId: string) => stack.events.received.filter((e) => e.routingKey === 'user.login.succeeded' && e.payload.userId === userId);

  /** Waits until the notifier handled `count` login events of the user (each one, whatever order they came in). */
  const loginsHandled = (userId: string, count: number) =>
    until(() => {
      const events = loginEventsOf(userId);
      return events.length >= count && events.every((e) => stack.notifier!.logs.some((r) => r.event_id === e.messageId && ['sent', 'no_devices'].includes(r.outcome)));
    }, 5_000, 'the login push handled');

  /**
   * Registers a user and waits until the notifier handled its first login: a push for that login
   * handled only after a device was registered (a slow broker, a publish retried) would reach it.
   */
  async function registerUser() {
    const registered = await registerAndLogin(stack);
    await loginsHandled(registered.id, 1);
    return registered;
  }

  /** Logs in again and waits until the notifier handled that login's event; answers the new session. */
  async function loginAgain(email: string, password: string, userId: string) {
    const before = loginEventsOf(userId).length;
    const login = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email, password } });
    expect(login.status).toBe(200);
    await loginsHandled(userId, before + 1);
    return login;
  }

  /** Waits until the notifier handled the end of the user's sessions. */
  const endHandled = (userId: string) =>
    until(() => stack.notifier!.logs.some((r) => r.event_type === 'account.sessions.ended' && r.outcome === 'removed' && stack.events.received.some((e) => e.messageId === r.event_id && e.payload.accountId === userId)), 5_000, 'the end of the sessions handled');

  describe('a device registered through sync', () => {
    it('when its session logs out, then the next login push does not reach it', async () => {
      const { account, accessToken, refresh, id } = await registerUser();
      const token = await registerDevice(accessToken, id);
      await loginAgain(account.email, account.password, id);
      expect(pushesTo(token)).toBe(1);

      await call(stack.url, 'POST', '/api/auth/user/logout', { cookie: `userRefreshToken=${refresh}` });
      await endHandled(id);
      await loginAgain(account.email, account.password, id);
      expect(pushesTo(token)).toBe(1);
    });

    it('when an admin disables the account, then its devices are dropped', async () => {
      const { account, accessToken, id } = await registerUser();
      const token = await registerDevice(accessToken, id);
      expect((await call(stack.url, 'PUT', `/api/admin/users/${id}`, { body: { disabled: true }, headers: bearer(adminToken) })).status).toBe(200);
      await endHandled(id);
      expect((await call(stack.url, 'PUT', `/api/admin/users/${id}`, { body: { disabled: false }, headers: bearer(adminToken) })).status).toBe(200);
      await loginAgain(account.email, account.password, id);
      expect(pushesTo(token)).toBe(0);
    });

    it('when the user signs the other sessions out, then their devices are dropped and the asking session keeps its own', async () => {
      const { account, accessToken, id } = await registerUser();
      const other = await registerDevice(accessToken, id);
      const current = await loginAgain(account.email, account.password, id);
      const own = await registerDevice(current.body.data.accessToken, id);
      expect((await call(stack.url, 'POST', '/api/auth/user/sessions/sign-out-others', { headers: bearer(current.body.data.accessToken) })).status).toBe(200);
      await endHandled(id);
      const pushedOther = pushesTo(other);
      const pushedOwn = pushesTo(own);
      await loginAgain(account.email, account.password, id);
      expect([pushesTo(other), pushesTo(own)]).toEqual([pushedOther, pushedOwn + 1]);
    });
  });

  describe('live sessions per account', () => {
    it('when a fourth session opens with a cap of 3, then the oldest ends: its refresh fails and its device is dropped', async () => {
      const account = buildAccount();
      const registered = await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
      const id = registered.body.data.user.id as string;
      const first = await loginAgain(account.email, account.password, id);
      const token = await registerDevice(first.body.data.accessToken, id);
      await loginAgain(account.email, account.password, id);
      await loginAgain(account.email, account.password, id);
      await loginAgain(account.email, account.password, id);
      await endHandled(id);

      const refresh = await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${cookieValue(first.setCookies, 'userRefreshToken')}` });
      expect(refresh.status).toBe(401);
      const sessions = await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: bearer((await loginAgain(account.email, account.password, id)).body.data.accessToken) });
      expect(sessions.body.data.sessions).toHaveLength(3);
      const pushed = pushesTo(token);
      await loginAgain(account.email, account.password, id);
      expect(pushesTo(token)).toBe(pushed);
    });
  });
});

// The contract's second step through the whole stack: its answers, words, cookie and caching. The
// flow's rules (one per account, its lifetime, attempts counted before the proof, a credential
// change or a disable ending it) are test/domain/sign-in.test.ts's, and the
// store's under parallel use services/auth/test/redis-sign-in-flows.state.test.ts's.
describe('otp.state', () => {
  // On the file's stack, with the default challenge lifetime (5 minutes): a loaded machine never
  // outlasts it between a login and its verify. The expiry at the end of the lifetime is held by
  // services/auth/test/domain/sign-in.test.ts ("ends … when its lifetime is over") and the store's
  // ("each lives its purpose's lifetime and never longer").

  const verify = (body: unknown) => call(stack.url, 'POST', '/api/auth/verify-otp', { body });
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  describe('admin login with a second factor', () => {
    it('answers OTP verification required with requires_2fa and a challenge token, and no cookie', async () => {
      const { login, event, admin } = await challenge();
      expect(login.status).toBe(200);
      expect(login.body.message).toBe('OTP verification required');
      expect(login.body.data.requires_2fa).toBe(true);
      expect(typeof login.body.data.challenge_token).toBe('string');
      expect(login.body.data).not.toHaveProperty('accessToken');
      expect(login.setCookies).toEqual([]);
      expect(event.payload).toMatchObject({ email: admin.email, code: expect.stringMatching(/^\d{6}$/) });
    });

    it('names the sign-in as a flow beside the contract’s fields, and verify-otp takes its id in place of challenge_token', async () => {
      const { login, code, adminId } = await challenge();
      expect(login.body.data.flow).toEqual({ id: login.body.data.challenge_token, next: ['email_code'] });
      const res = await verify({ flow: login.body.data.flow.id, code });
      expect([res.status, res.body.data.user.id]).toEqual([200, adminId]);
    });

    it('verify-otp with the right code answers Login successful with token, user and the admin cookie', async () => {
      const { token, code, adminId } = await challenge();
      const res = await verify({ challenge_token: token, code });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Login successful');
      expect(res.body.data.user).toMatchObject({ id: adminId, role: 'admin' });
      expect(res.body.data.token.split('.')).toHaveLength(3);
      // The same token under the name every other answer uses.
      expect(res.body.data.accessToken).toBe(res.body.data.token);
      expect(res.body.data.expiresIn).toBe(900);
      expect(cookieValue(res.setCookies, 'adminRefreshToken')).toBeDefined();
    });

    it('a code works once only', async () => {
      const { token, code } = await challenge();
      expect((await verify({ challenge_token: token, code })).status).toBe(200);
      expect((await verify({ challenge_token: token, code })).status).toBe(401);
    });

    it('a wrong code answers 401, and after five wrong codes even the right one is refused', async () => {
      const { token, code } = await challenge();
      for (let i = 0; i < 5; i++) {
        const res = await verify({ challenge_token: token, code: wrong(code) });
        expect(res.status).toBe(401);
      }
      const res = await verify({ challenge_token: token, code });
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Invalid or expired challenge token');
    });

    it.each([
      [{}, 'Please provide challenge_token and code'],
      [{ challenge_token: 'x' }, 'Please provide challenge_token and code'],
      [{ code: '123456' }, 'Please provide challenge_token and code'],
      [{ challenge_token: 'x', code: '12345' }, 'Code must be a 6 digit OTP'],
      [{ challenge_token: 'x', code: '12345a' }, 'Code must be a 6 digit OTP'],
      [{ challenge_token: 'x', code: 123456 }, 'Code must be a 6 digit OTP'],
    ])('validates %j with 400 %s', async (body, message) => {
      const res = await verify(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    });

    it('an unknown challenge token answers 401', async () => {
      const res = await verify({ challenge_token: 'AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', code: '123456' });
      expect(res.status).toBe(401);
    });
  });

  describe('the second step’s caching', () => {
    it('answers the challenge with Cache-Control no-store, and the session too', async () => {
      const { login, token, code } = await challenge();
      expect(login.headers.get('cache-control')).toBe('no-store');
      expect((await verify({ challenge_token: token, code })).headers.get('cache-control')).toBe('no-store');
    });
  });
});

// Prometheus metrics on each service's health port, never on the public port: a login, a refresh,
// a failed login and a login push move the counters a dashboard would watch, and no label carries
// an email, an id or a token.
// On the file's stack: no other file moves its counters, and its notifier counts the login pushes.
describe('metrics', () => {

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
      const adminToken = await signedInAdmin();
      const userId = '0123456789abcdef01234567';
      await call(stack.url, 'GET', `/api/admin/users/${userId}`, { headers: { authorization: `Bearer ${adminToken}` } });

      const gateway = await scrape(stack.running.gateway.healthPort);
      const auth = await scrape(stack.running.auth.healthPort);
      expect(value(gateway, 'http_requests_total', { route: '/api/admin/users/:userId', method: 'GET', status: '404' })).toBeGreaterThanOrEqual(1);
      expect(value(auth, 'http_requests_total', { route: '/api/admin/users/:userId', method: 'GET', status: '404' })).toBeGreaterThanOrEqual(1);
      expect(gateway).not.toContain(userId);
      expect(auth).not.toContain(userId);
    });
  });
});
