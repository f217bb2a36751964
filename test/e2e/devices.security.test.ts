// A device's push token belongs to the session that registered it through sync: when that session
// ends (logout, sign-out, a reset, a disable, the cap on live sessions), the owner's login pushes
// stop going to it. The whole path runs: desktop's outbox, the broker, the notifier's store.
import { randomBytes } from 'node:crypto';
import { call, cookieValue } from '@acct/test-harness/http-client';
import { until } from '@acct/test-harness/until';
import { buildAccount, registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
let adminToken: string;
beforeAll(async () => {
  stack = await startStack('devices', { notifier: true, auth: { SESSION_MAX_PER_ACCOUNT: '3', ADMIN_REGISTRATION_OPEN: 'true' } });
  adminToken = (await registerAndLogin(stack, 'admin')).accessToken;
});
afterAll(() => stack.stop());

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
