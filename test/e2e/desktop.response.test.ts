// The desktop routes: latest-version check, sync and releases, through the gateway.

import mongoose from 'mongoose';
import { ReleaseRepository } from '@acct/desktop';
import { call } from '@acct/test-harness/http-client';
import { until } from '@acct/test-harness/until';
import { proofRunsOut, testUrls } from '@acct/test-harness/isolation';
import { registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';
import { sharedStack, type SharedStack } from '@acct/test-stack/shared';

describe('desktop.response', () => {
  let stack: TestStack;
  let releases: ReleaseRepository;
  let conn: mongoose.Connection;
  beforeAll(async () => {
    // Releases are written straight to the database here, past every cache: neither desktop nor the
    // gateway holds an answer (the gateway's holding is tested in desktop-releases.response.test.ts).
    stack = await startStack('desktop', {
      desktop: { SYNC_MAX_CHANGES: '5', SYNC_MAX_VALUE_BYTES: '100', SYNC_PAGE_SIZE: '3', RELEASE_CACHE_MS: '0' },
      gateway: { PUBLIC_CACHE_MS: '0' },
      auth: { ADMIN_REGISTRATION_OPEN: 'true' },
    });
    conn = await mongoose.createConnection(testUrls().mongo, { dbName: `${stack.names.mongoDb}_desktop` }).asPromise();
    releases = new ReleaseRepository(conn);
  });
  afterAll(async () => {
    await conn.close();
    await stack.stop();
  });

  const sha = 'a'.repeat(64);
  const publish = (platform: 'linux' | 'win32' | 'darwin', version: string, mandatory = false) =>
    releases.publish({ platform, version, url: `https://downloads.example.com/${platform}/${version}`, sha256: sha, notes: `notes ${version}`, mandatory });

  describe('GET /api/desktop/latest-version', () => {
    // Each test publishes what it reads: none depends on another's releases.
    beforeEach(async () => {
      await conn.collection('releases').deleteMany({});
    });

    it('answers the highest semantic version, not the latest published', async () => {
      await publish('linux', '1.10.0');
      await publish('linux', '1.9.3');
      await publish('linux', '1.10.0-beta.1');
      const res = await call(stack.url, 'GET', '/api/desktop/latest-version?platform=linux');
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ platform: 'linux', version: '1.10.0', url: 'https://downloads.example.com/linux/1.10.0', sha256: sha, mandatory: false, notes: 'notes 1.10.0' });
      expect(res.body.data.publishedAt).toMatch(/Z$/);
      expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    });

    it('answers 304 to a client that already has that answer', async () => {
      await publish('darwin', '2.0.0', true);
      const first = await call(stack.url, 'GET', '/api/desktop/latest-version?platform=darwin');
      const etag = first.headers.get('etag')!;
      const again = await call(stack.url, 'GET', '/api/desktop/latest-version?platform=darwin', { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
    });

    it('answers 404 when nothing is published for a known platform', async () => {
      const res = await call(stack.url, 'GET', '/api/desktop/latest-version?platform=win32');
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, message: 'No release published for this platform' });
    });

    it.each([
      ['', 'Please provide platform'],
      ['?platform=', 'Please provide platform'],
      ['?platform=beos', 'Unknown platform: use win32, darwin or linux'],
      ['?platform=linux&platform=win32', 'Unknown platform: use win32, darwin or linux'],
    ])('answers 400 for %s', async (query, message) => {
      const res = await call(stack.url, 'GET', `/api/desktop/latest-version${query}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    });

    it('no longer answers a withdrawn release', async () => {
      await publish('win32', '3.0.0');
      await publish('win32', '3.1.0');
      await releases.withdraw('win32', '3.1.0');
      expect((await call(stack.url, 'GET', '/api/desktop/latest-version?platform=win32')).body.data.version).toBe('3.0.0');
    });
  });

  describe('POST /api/desktop/sync', () => {
    const device = { id: 'laptop-1', platform: 'linux', appVersion: '1.10.0' };
    const sync = (token: string | undefined, body: unknown) =>
      call(stack.url, 'POST', '/api/desktop/sync', { body, headers: token ? { authorization: `Bearer ${token}` } : {} });

    it('answers 401 without a session and 403 for an admin session', async () => {
      expect((await sync(undefined, { device })).status).toBe(401);
      const admin = await registerAndLogin(stack, 'admin');
      expect((await sync(admin.accessToken, { device })).status).toBe(403);
    });

    it('answers a 10,000-deep JSON value with 400 validation_failed, never a 500 or a stack in the log', async () => {
      const { accessToken } = await registerAndLogin(stack);
      const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
      const res = await call(stack.url, 'POST', '/api/desktop/sync', {
        rawBody: `{"device":${JSON.stringify(device)},"cursor":"0","changes":[{"key":"k","value":${deep},"updatedAt":"${new Date().toISOString()}"}]}`,
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'validation_failed' });
      expect(stack.logs.service.filter((r) => r.level === 'error')).toEqual([]);
    });

    it('merges last-writer-wins both ways and converges two devices', async () => {
      const { accessToken } = await registerAndLogin(stack);
      const a = { ...device, id: 'device-a' };
      const b = { ...device, id: 'device-b' };
      const first = await sync(accessToken, { device: a, changes: [{ key: 'theme', value: 'dark', updatedAt: '2026-01-01T10:00:00.000Z' }] });
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ items: [], accepted: 1, rejected: 0 });
      // b is older: it loses and is told the winning value.
      const older = await sync(accessToken, { device: b, changes: [{ key: 'theme', value: 'light', updatedAt: '2026-01-01T09:00:00.000Z' }] });
      expect(older.body.data.rejected).toBe(1);
      expect(older.body.data.items).toEqual([{ key: 'theme', value: 'dark', updatedAt: '2026-01-01T10:00:00.000Z' }]);
      // b is newer: it wins, and a learns it from its cursor.
      await sync(accessToken, { device: b, changes: [{ key: 'theme', value: { mode: 'solarized', $set: 1 }, updatedAt: '2026-01-01T11:00:00.000Z' }] });
      const pulled = await sync(accessToken, { device: a, cursor: first.body.data.cursor });
      expect(pulled.body.data.items).toEqual([{ key: 'theme', value: { mode: 'solarized', $set: 1 }, updatedAt: '2026-01-01T11:00:00.000Z' }]);
    });

    it('breaks a tie in updatedAt by device id, the same way whatever the order', async () => {
      const { accessToken } = await registerAndLogin(stack);
      const at = '2026-02-02T00:00:00.000Z';
      await sync(accessToken, { device: { ...device, id: 'zeta' }, changes: [{ key: 'k', value: 'from zeta', updatedAt: at }] });
      const tie = await sync(accessToken, { device: { ...device, id: 'alpha' }, changes: [{ key: 'k', value: 'from alpha', updatedAt: at }] });
      expect(tie.body.data.rejected).toBe(1);
      const { accessToken: other } = await registerAndLogin(stack);
      await sync(other, { device: { ...device, id: 'alpha' }, changes: [{ key: 'k', value: 'from alpha', updatedAt: at }] });
      const win = await sync(other, { device: { ...device, id: 'zeta' }, changes: [{ key: 'k', value: 'from zeta', updatedAt: at }] });
      expect(win.body.data.accepted).toBe(1);
    });

    it('pages changes by cursor', async () => {
      const { accessToken } = await registerAndLogin(stack);
      const changes = ['a', 'b', 'c', 'd', 'e'].map((key) => ({ key, value: key, updatedAt: '2026-03-03T00:00:00.000Z' }));
      await sync(accessToken, { device: { ...device, id: 'writer' }, changes });
      const page1 = await sync(accessToken, { device: { ...device, id: 'reader' } });
      expect(page1.body.data.items.map((i: { key: string }) => i.key)).toEqual(['a', 'b', 'c']);
      expect(page1.body.data.hasMore).toBe(true);
      const page2 = await sync(accessToken, { device: { ...device, id: 'reader' }, cursor: page1.body.data.cursor });
      expect(page2.body.data.items.map((i: { key: string }) => i.key)).toEqual(['d', 'e']);
      expect(page2.body.data.hasMore).toBe(false);
      const page3 = await sync(accessToken, { device: { ...device, id: 'reader' }, cursor: page2.body.data.cursor });
      expect(page3.body.data.items).toEqual([]);
    });

    it('answers a cursor ahead of the server with 409 "start over", applying nothing, and syncs from 0 after', async () => {
      const { accessToken } = await registerAndLogin(stack);
      const first = await sync(accessToken, { device, changes: [{ key: 'note', value: 'kept', updatedAt: '2026-04-04T00:00:00.000Z' }] });
      const ahead = String(Number(first.body.data.cursor) + 5);
      const res = await sync(accessToken, { device, cursor: ahead, changes: [{ key: 'note', value: 'from the future cursor', updatedAt: '2026-04-05T00:00:00.000Z' }] });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ success: false, message: 'Cursor is ahead of the server: start over with cursor 0', code: 'sync_cursor_ahead' });
      const again = await sync(accessToken, { device: { ...device, id: 'other' }, cursor: '0' });
      expect(again.body.data.items).toEqual([{ key: 'note', value: 'kept', updatedAt: '2026-04-04T00:00:00.000Z' }]);
      // The server's own cursor is never ahead of itself.
      expect((await sync(accessToken, { device, cursor: again.body.data.cursor })).status).toBe(200);
    });

    it.each([
      [{}, 400, 'Please provide device id, platform and appVersion'],
      [{ device: { ...device, platform: 'beos' } }, 400, 'Unknown platform: use win32, darwin or linux'],
      [{ device, cursor: 'abc' }, 400, 'Invalid cursor'],
      [{ device, changes: [{ key: 'k' }] }, 400, 'Each change needs a key, a value and updatedAt'],
      [{ device, changes: [{ key: 'k', value: 1, updatedAt: 'yesterday' }] }, 400, 'Each change needs a key, a value and updatedAt'],
      [{ device, changes: Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: 1, updatedAt: '2026-01-01T00:00:00Z' })) }, 413, 'Too many changes in one sync (at most 5)'],
      [{ device, changes: [{ key: 'k', value: 'x'.repeat(200), updatedAt: '2026-01-01T00:00:00Z' }] }, 413, 'A change value is too large (at most 100 bytes)'],
    ])('refuses %j with %i', async (body, status, message) => {
      const { accessToken } = await registerAndLogin(stack);
      const res = await sync(accessToken, body);
      expect(res.status).toBe(status);
      expect(res.body.message).toBe(message);
    });

    it('publishes device.registered for a new or changed push token, once', async () => {
      const { accessToken, id } = await registerAndLogin(stack);
      const withToken = { ...device, id: 'phone', pushToken: 'push-1' };
      await sync(accessToken, { device: withToken });
      await sync(accessToken, { device: withToken });
      const event = await stack.events.waitFor('device.registered', (p) => p.userId === id);
      expect(event.payload).toMatchObject({ userId: id, deviceId: 'phone', platform: 'linux', pushToken: 'push-1' });
      await sync(accessToken, { device: { ...withToken, pushToken: 'push-2' } });
      await stack.events.waitFor('device.registered', (p) => p.userId === id && p.pushToken === 'push-2');
      expect(stack.events.received.filter((e) => e.routingKey === 'device.registered' && e.payload.userId === id)).toHaveLength(2);
    });

    it("keeps no push token in desktop's outbox once the broker has the event (the notifier owns tokens)", async () => {
      const { accessToken, id } = await registerAndLogin(stack);
      await sync(accessToken, { device: { ...device, id: 'tablet', pushToken: 'push-secret-3' } });
      const event = await stack.events.waitFor('device.registered', (p) => p.userId === id && p.deviceId === 'tablet');
      const outbox = conn.collection('outbox');
      const entry = await until(async () => {
        const found = await outbox.findOne({ _id: event.messageId as never });
        return found?.status === 'published' ? found : undefined;
      }, 5_000, 'the outbox entry marked published');
      expect(entry.payload).toMatchObject({ userId: id, deviceId: 'tablet' });
      expect(entry.payload).not.toHaveProperty('pushToken');
      const devices = await conn.collection('devices').find({ userId: id }).toArray();
      expect(devices).toHaveLength(1);
      expect(JSON.stringify(devices)).not.toContain('push-secret-3');
    });
  });
});

// The desktop releases from the admin console (issue 48): through auth, which asks the admin's
// recent proof before a change and keeps it in the activity log, to desktop, which checks and keeps
// the release as the release tool does. The version check answers a change at once on the replica
// that made it, whatever RELEASE_CACHE_MS.
describe('desktop-releases.response', () => {
  // The run's shared stack, whose desktop holds the latest release ten minutes (RELEASE_CACHE_MS).
  let stack: SharedStack;

  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(() => stack.stop());

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const sha = 'ab'.repeat(32);
  // Jest runs the tests in a random order: each that publishes keeps to a platform of its own.
  const release = (version: string, more: Record<string, unknown> = {}, platform = 'linux') => ({ platform, version, url: `https://downloads.example.com/${platform}/${version}`, sha256: sha, notes: `notes ${version}`, ...more });
  const latest = (platform = 'linux') => call(stack.url, 'GET', `/api/desktop/latest-version?platform=${platform}`);

  it('publishes a release after the admin’s recent proof: the version check answers it at once, the log names the admin', async () => {
    const admin = await registerAndLogin(stack, 'admin');
    // Read before: the version check's cache holds "none" for ten minutes.
    const before = await latest('darwin');
    expect([before.status, before.body.code]).toEqual([404, 'no_release']);

    // The proof of the login runs out (as after STEP_UP_SECONDS): refused until the admin proves it again.
    await proofRunsOut(stack, admin.accessToken);
    const refused = await call(stack.url, 'POST', '/api/admin/desktop/releases', { headers: bearer(admin.accessToken), body: release('2.0.0', {}, 'darwin') });
    expect([refused.status, refused.body.code]).toEqual([403, 'step_up_required']);
    const proven = await call(stack.url, 'POST', '/api/auth/admin/reauthenticate', { headers: bearer(admin.accessToken), body: { password: admin.account.password } });
    expect(proven.status).toBe(200);

    const published = await call(stack.url, 'POST', '/api/admin/desktop/releases', { headers: bearer(admin.accessToken), body: release('2.0.0', { sha256: sha.toUpperCase(), mandatory: true }, 'darwin') });
    expect([published.status, published.body.message]).toEqual([201, 'Release published']);
    expect(published.body.data.release).toEqual({ ...release('2.0.0', {}, 'darwin'), mandatory: true, publishedAt: expect.any(String), withdrawnAt: null });
    expect((await latest('darwin')).body.data).toMatchObject({ version: '2.0.0', mandatory: true, sha256: sha });

    const listed = await call(stack.url, 'GET', '/api/admin/desktop/releases?platform=darwin', { headers: bearer(admin.accessToken) });
    expect([listed.status, listed.headers.get('cache-control')]).toEqual([200, 'no-store']);
    expect(listed.body.data.releases.map((r: { version: string }) => r.version)).toEqual(['2.0.0']);

    const log = await call(stack.url, 'GET', `/api/admin/activity?type=release_published&kind=admin&accountId=${admin.id}`, { headers: bearer(admin.accessToken) });
    expect(log.body.data.activity.map((e: { accountId: string; details: string[] }) => [e.accountId, e.details])).toEqual([[admin.id, ['darwin 2.0.0 (mandatory)']]]);

    const again = await call(stack.url, 'POST', '/api/admin/desktop/releases', { headers: bearer(admin.accessToken), body: release('2.0.0', {}, 'darwin') });
    expect([again.status, again.body.code]).toEqual([409, 'release_exists']);
  });

  it.each([
    [{ platform: 'beos' }, 'platform must be one of win32, darwin, linux'],
    [{ version: 'two' }, "version must be a semantic version such as 1.4.0 (got 'two')"],
    [{ url: 'downloads/linux' }, 'url must be an absolute URL'],
    [{ url: 'ftp://downloads.example.com/x' }, 'url must be http(s)'],
    [{ sha256: 'abc' }, 'sha256 must be 64 hexadecimal characters'],
    [{ mandatory: 'yes' }, 'mandatory must be true or false'],
  ])('refuses a release with %j: 400 saying which field and why', async (change, message) => {
    const admin = await registerAndLogin(stack, 'admin');
    const refused = await call(stack.url, 'POST', '/api/admin/desktop/releases', { headers: bearer(admin.accessToken), body: release('3.0.0', change) });
    expect([refused.status, refused.body.code, refused.body.message]).toEqual([400, 'validation_failed', message]);
  });

  it('withdraws a release: the version check answers the newest left, and a second withdrawal is a 404', async () => {
    const admin = await registerAndLogin(stack, 'admin');
    for (const version of ['4.0.0', '4.1.0']) {
      expect((await call(stack.url, 'POST', '/api/admin/desktop/releases', { headers: bearer(admin.accessToken), body: release(version) })).status).toBe(201);
    }
    expect((await latest()).body.data.version).toBe('4.1.0');
    const withdrawn = await call(stack.url, 'DELETE', '/api/admin/desktop/releases/linux/4.1.0', { headers: bearer(admin.accessToken) });
    expect([withdrawn.status, withdrawn.body.message]).toEqual([200, 'Release withdrawn']);
    expect((await latest()).body.data.version).toBe('4.0.0');
    const listed = await call(stack.url, 'GET', '/api/admin/desktop/releases?platform=linux', { headers: bearer(admin.accessToken) });
    expect(listed.body.data.releases.find((r: { version: string }) => r.version === '4.1.0').withdrawnAt).toEqual(expect.any(String));
    const twice = await call(stack.url, 'DELETE', '/api/admin/desktop/releases/linux/4.1.0', { headers: bearer(admin.accessToken) });
    expect([twice.status, twice.body.code]).toEqual([404, 'release_not_found']);
    const log = await call(stack.url, 'GET', `/api/admin/activity?type=release_withdrawn&kind=admin&accountId=${admin.id}`, { headers: bearer(admin.accessToken) });
    expect(log.body.data.activity.map((e: { details: string[] }) => e.details)).toEqual([['linux 4.1.0']]);
  });

  it('lets no user and no one without a session near the releases', async () => {
    const user = await registerAndLogin(stack);
    for (const [method, path] of [
      ['GET', '/api/admin/desktop/releases'],
      ['POST', '/api/admin/desktop/releases'],
      ['DELETE', '/api/admin/desktop/releases/linux/1.0.0'],
    ]) {
      expect([path, (await call(stack.url, method, path, { headers: bearer(user.accessToken), body: method === 'POST' ? release('5.0.0') : undefined })).status]).toEqual([path, 403]);
      expect([path, (await call(stack.url, method, path)).status]).toEqual([path, 401]);
    }
  });
});
