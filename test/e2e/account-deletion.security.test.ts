// Deleting an account and exporting one's data, end to end through the gateway, the broker, the
// notifier and desktop. A deletion ends the sessions at once, and every service drops its part on the
// account.deleted event (push tokens, sync data and devices), once; a replay of the event deletes
// nothing else. An export holds everything but hashes, secrets and tokens. What a deletion must be
// proven by, what it removes in auth and the last admin kept are test/domain/deletion.test.ts's.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import mongoose from 'mongoose';
import { amqpNodeUrls } from '@acct/shared/amqp';
import { call, cookieValue } from '@acct/test-harness/http-client';
import { testUrls } from '@acct/test-harness/isolation';
import { decodeQuotedPrintable } from '@acct/test-harness/smtp';
import { startTcpProxy } from '@acct/test-harness/tcp-proxy';
import { until } from '@acct/test-harness/until';
import { buildAccount, registerAndLogin } from '@acct/test-harness/factories';
import { startStack, type TestStack } from '@acct/test-stack/stack';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const deps = require('../../scripts/lib/dependencies.js');

let stack: TestStack;
let mongo: mongoose.Connection;
beforeAll(async () => {
  stack = await startStack('deletion', { notifier: true, auth: { ADMIN_REGISTRATION_OPEN: 'true' } });
  mongo = await mongoose.createConnection(testUrls().mongo).asPromise();
});
afterAll(async () => {
  await mongo.close();
  await stack.stop();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const desktopDb = () => mongo.useDb(`${stack.names.mongoDb}_desktop`, { useCache: true });
const notifierDb = () => mongo.useDb(`${stack.names.mongoDb}_notifier`, { useCache: true });
/** What desktop and the notifier hold of a user. */
const heldOf = async (userId: string) => ({
  syncItems: await desktopDb().collection('sync_items').countDocuments({ userId }),
  devices: await desktopDb().collection('devices').countDocuments({ userId }),
  pushTokens: await notifierDb().collection('device_tokens').countDocuments({ userId }),
});
const mails = () => fs.readdirSync(stack.notifier!.mailDir).map((f) => decodeQuotedPrintable(fs.readFileSync(path.join(stack.notifier!.mailDir, f), 'utf8')));

/** A signed-in user with a desktop device (and its push token at the notifier) and some sync data. */
async function userWithData() {
  const user = await registerAndLogin(stack, 'user');
  const pushToken = `fcm-${randomBytes(6).toString('hex')}`;
  const device = { id: `laptop-${randomBytes(4).toString('hex')}`, platform: 'linux', appVersion: '1.0.0', pushToken };
  const changes = [{ key: 'settings.theme', value: { mode: 'dark' }, updatedAt: new Date().toISOString() }];
  const synced = await call(stack.url, 'POST', '/api/desktop/sync', { body: { device, cursor: '0', changes }, headers: bearer(user.accessToken) });
  expect(synced.status).toBe(200);
  await until(async () => (await heldOf(user.id)).pushTokens === 1, 5_000, 'the push token stored');
  expect(await heldOf(user.id)).toEqual({ syncItems: 1, devices: 1, pushTokens: 1 });
  return { ...user, pushToken, deviceId: device.id };
}

describe('a user deletes their account', () => {
  it('with the password: sessions end at once, the cookie is cleared, and every service drops its part', async () => {
    const user = await userWithData();
    const other = await userWithData();
    const res = await call(stack.url, 'DELETE', '/api/auth/user/me', { headers: bearer(user.accessToken), body: { password: user.account.password } });
    expect([res.status, res.body.message]).toEqual([200, 'Account deleted']);
    expect(cookieValue(res.setCookies, 'userRefreshToken')).toBe('');

    expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${user.refresh}` })).status).toBe(401);
    await until(async () => (await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer(user.accessToken) })).status === 401, 2_000, 'the access token refused');
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } })).status).toBe(401);

    await until(async () => JSON.stringify(await heldOf(user.id)) === JSON.stringify({ syncItems: 0, devices: 0, pushTokens: 0 }), 5_000, 'desktop and the notifier dropped the user');
    await until(() => mails().some((m) => m.includes(`To: ${user.account.email}`) && m.includes('account was deleted')), 5_000, 'the notice mailed');
    // Nobody else's.
    expect(await heldOf(other.id)).toEqual({ syncItems: 1, devices: 1, pushTokens: 1 });

    // The address is free again.
    expect((await call(stack.url, 'POST', '/api/auth/user/register', { body: { ...buildAccount(), email: user.account.email } })).status).toBe(201);
  });

  it('a replayed account.deleted event deletes nothing else', async () => {
    const user = await userWithData();
    await call(stack.url, 'DELETE', '/api/auth/user/me', { headers: bearer(user.accessToken), body: { password: user.account.password } });
    const event = await stack.events.waitFor('account.deleted', (p) => p.accountId === user.id);
    await until(async () => (await heldOf(user.id)).devices === 0, 5_000, 'desktop dropped the user');
    const bystander = await userWithData();
    // The same event again, as a redelivery would bring it.
    await stack.notifier!.publisher.publish('account.deleted', event.payload);
    await until(() => stack.logs.service.filter((r) => r.message === 'Removed the sync data of a deleted account' && r.user_id === user.id).length === 2, 5_000, 'the replay handled');
    expect(stack.logs.service.filter((r) => r.message === 'Removed the sync data of a deleted account' && r.user_id === user.id).map((r) => r.removed)).toEqual([3, 0]);
    expect(await heldOf(bystander.id)).toEqual({ syncItems: 1, devices: 1, pushTokens: 1 });
  });
});

describe('an admin deletes', () => {
  it("a user's account, once", async () => {
    const admin = await registerAndLogin(stack, 'admin');
    const user = await userWithData();
    const res = await call(stack.url, 'DELETE', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken) });
    expect([res.status, res.body.message]).toEqual([200, 'User deleted']);
    await until(async () => (await heldOf(user.id)).syncItems === 0, 5_000, 'desktop dropped the user');
    const again = await call(stack.url, 'DELETE', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken) });
    expect([again.status, again.body.code]).toEqual([404, 'user_not_found']);
    expect((await call(stack.url, 'DELETE', `/api/admin/users/${user.id}`, { headers: bearer(user.accessToken) })).status).toBe(401);
  });
});

// One stack of its own for what takes a dependency away from auth: it reaches the broker through a
// proxy this file cuts, and asks for a user's desktop data at an address where nothing listens (the
// gateway reaches desktop as usual).
describe('with a dependency away (a stack of its own)', () => {
  let own: TestStack;
  let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
  beforeAll(async () => {
    // One node of the broker (of a cluster's, under `npm run test:ha`), behind a proxy.
    const broker = new URL(amqpNodeUrls(testUrls().amqp)[0]);
    proxy = await startTcpProxy({ host: broker.hostname, port: Number(broker.port || 5672) });
    const nobody = await deps.freePort();
    own = await startStack('deletion-outage', { auth: { AMQP_URL: `amqp://${broker.username}:${broker.password}@127.0.0.1:${proxy.port}`, DESKTOP_URL: `http://127.0.0.1:${nobody}` } });
  });
  afterAll(async () => {
    await own?.stop();
    await proxy?.close();
  });

  it('deleting while the broker is away from auth answers at once, and the other services drop their part once the broker is back (the outbox keeps the event)', async () => {
    const user = await registerAndLogin(own, 'user');
    const changes = [{ key: 'k', value: 1, updatedAt: new Date().toISOString() }];
    const device = { id: 'laptop', platform: 'linux', appVersion: '1.0.0' };
    expect((await call(own.url, 'POST', '/api/desktop/sync', { body: { device, cursor: '0', changes }, headers: bearer(user.accessToken) })).status).toBe(200);
    const items = () => mongo.useDb(`${own.names.mongoDb}_desktop`, { useCache: true }).collection('sync_items').countDocuments({ userId: user.id });
    expect(await items()).toBe(1);

    await proxy.cut();
    const res = await call(own.url, 'DELETE', '/api/auth/user/me', { headers: bearer(user.accessToken), body: { password: user.account.password } });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await items()).toBe(1);

    await proxy.restore();
    await until(async () => (await items()) === 0, 15_000, "desktop dropped the deleted user's data after the broker came back");
    await own.events.waitFor('account.deleted', (p) => p.accountId === user.id);
  }, 30_000);

  it("a user's export is a 503 when desktop does not answer, never a partial export", async () => {
    const user = await registerAndLogin(own, 'user');
    const res = await call(own.url, 'GET', '/api/auth/user/me/export', { headers: bearer(user.accessToken) });
    expect([res.status, res.body.code]).toEqual([503, 'service_unavailable']);
  });
});

describe("a user's own data", () => {
  it('exports the profile, sessions, factors and desktop data, without a hash, secret or token', async () => {
    const user = await userWithData();
    const res = await call(stack.url, 'GET', '/api/auth/user/me/export', { headers: bearer(user.accessToken) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.data.profile).toMatchObject({ id: user.id, email: user.account.email });
    expect(res.body.data.sessions).toEqual([expect.objectContaining({ current: true })]);
    expect(res.body.data.desktop).toEqual({
      devices: [{ id: user.deviceId, platform: 'linux', appVersion: '1.0.0', lastSyncAt: expect.any(String) }],
      sync: { items: 1, cursor: '1' },
    });
    for (const secret of [user.account.password, user.accessToken, user.refresh, user.pushToken, 'passwordHash', 'pushToken']) expect(res.text).not.toContain(secret);
  });
});
