// The desktop releases from the admin console (issue 48): through auth, which asks the admin's
// recent proof before a change and keeps it in the activity log, to desktop, which checks and keeps
// the release as the release tool does. The version check answers a change at once on the replica
// that made it, whatever RELEASE_CACHE_MS.
import { registerAndLogin } from '@acct/test-harness/factories';
import { call } from '@acct/test-harness/http-client';
import { deleteRedisPrefix } from '@acct/test-harness/isolation';
import { startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack('releases', { auth: { ADMIN_REGISTRATION_OPEN: 'true' }, desktop: { RELEASE_CACHE_MS: '600000' } });
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
  await deleteRedisPrefix(stack.redis, `${stack.names.redisPrefix}step-up:`);
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
