// The activity history (issue 48): what happened to an account, read back by its owner and by admins,
// each entry with the request's address and device and, for an admin's act, who (to admins only);
// paged newest first, filtered, bounded per account, and gone with the account but for its deletion.
import { buildAccount, registerAndLogin } from '@acct/test-harness/factories';
import { call } from '@acct/test-harness/http-client';
import { startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
const DEVICE = 'ActivityTest/1.0 (test device)';

beforeAll(async () => {
  stack = await startStack('activity', { auth: { ADMIN_REGISTRATION_OPEN: 'true', ACTIVITY_MAX_PER_ACCOUNT: '10' } });
});
afterAll(() => stack.stop());

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'user-agent': DEVICE });
const own = async (token: string, query = '') => call(stack.url, 'GET', `/api/auth/user/activity${query}`, { headers: bearer(token) });
const types = (answer: { body: { data: { activity: Array<{ type: string }> } } }) => answer.body.data.activity.map((e) => e.type);

describe('a user’s own activity', () => {
  it('lists sign-ins, a wrong password and a password change, newest first, with address and device, and never a secret', async () => {
    const account = buildAccount();
    expect((await call(stack.url, 'POST', '/api/auth/user/register', { body: account })).status).toBe(201);
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'wrong password here' }, headers: { 'user-agent': DEVICE } })).status).toBe(401);
    const login = await call(stack.url, 'POST', '/api/auth/user/login', { body: account, headers: { 'user-agent': DEVICE } });
    expect(login.status).toBe(200);
    const token = login.body.data.accessToken as string;
    const next = 'another long passphrase';
    const changed = await call(stack.url, 'POST', '/api/auth/user/password', { headers: bearer(token), body: { currentPassword: account.password, newPassword: next } });
    expect(changed.status).toBe(200);

    const answer = await own(changed.body.data.accessToken);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(types(answer)).toEqual(expect.arrayContaining(['password_changed', 'signed_in', 'sign_in_failed']));
    const all = answer.body.data.activity as Array<{ type: string; at: string; ip?: string; userAgent?: string; actor?: unknown; details?: string[] }>;
    // Newest first.
    expect(all.map((e) => e.at)).toEqual([...all.map((e) => e.at)].sort().reverse());
    expect(types(answer).indexOf('signed_in')).toBeLessThan(types(answer).indexOf('sign_in_failed'));
    const signedIn = all.find((e) => e.type === 'signed_in')!;
    expect(signedIn).toMatchObject({ ip: expect.any(String), userAgent: DEVICE, details: ['method: password'] });
    expect(signedIn.actor).toBeUndefined();
    const text = JSON.stringify(all);
    for (const secret of [account.password, next, 'wrong password here', token]) expect(text).not.toContain(secret);
  });

  it('pages with the cursor, filters by type, and refuses what it cannot read', async () => {
    const user = await registerAndLogin(stack);
    for (let i = 0; i < 3; i++) await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: `wrong ${i} password` } });
    const first = await own(user.accessToken, '?limit=2');
    expect(first.body.data.activity).toHaveLength(2);
    expect(first.body.data.nextCursor).toEqual(expect.any(String));
    const second = await own(user.accessToken, `?limit=2&cursor=${first.body.data.nextCursor}`);
    const ids = [...first.body.data.activity, ...second.body.data.activity].map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(4);
    const failed = await own(user.accessToken, '?type=sign_in_failed');
    expect(types(failed)).toEqual(['sign_in_failed', 'sign_in_failed', 'sign_in_failed']);
    expect(failed.body.data.nextCursor).toBeNull();
    for (const query of ['?limit=0', '?limit=101', '?cursor=nope', '?type=Not-A-Type']) {
      const refused = await own(user.accessToken, query);
      expect([query, refused.status, refused.body.code]).toEqual([query, 400, 'validation_failed']);
    }
    expect((await call(stack.url, 'GET', '/api/auth/user/activity')).status).toBe(401);
  });

  it('keeps at most ACTIVITY_MAX_PER_ACCOUNT entries, the newest', async () => {
    const user = await registerAndLogin(stack);
    for (let i = 0; i < 12; i++) await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: `wrong ${i} password` } });
    const answer = await own(user.accessToken, '?limit=100');
    expect(answer.body.data.activity).toHaveLength(10);
    expect(types(answer)).toEqual(Array(10).fill('sign_in_failed'));
  });
});

describe('what admins read', () => {
  it('names the admin who changed a user to admins, and only that an admin did to the user', async () => {
    const admin = await registerAndLogin(stack, 'admin');
    const user = await registerAndLogin(stack);
    const updated = await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken), body: { name: 'Renamed Person' } });
    expect(updated.status).toBe(200);

    const asOwner = (await own(user.accessToken)).body.data.activity.find((e: { type: string }) => e.type === 'profile_updated');
    expect(asOwner).toMatchObject({ details: ['name'], actor: { kind: 'admin' } });
    expect(asOwner.actor.id).toBeUndefined();

    const asAdmin = await call(stack.url, 'GET', `/api/admin/users/${user.id}/activity`, { headers: bearer(admin.accessToken) });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.data.activity.find((e: { type: string }) => e.type === 'profile_updated').actor).toEqual({ kind: 'admin', id: admin.id });

    const byAdmin = await call(stack.url, 'GET', `/api/admin/activity?actorId=${admin.id}`, { headers: bearer(admin.accessToken) });
    expect(byAdmin.body.data.activity.map((e: { type: string; accountId: string }) => [e.type, e.accountId])).toEqual([['profile_updated', user.id]]);
    const admins = await call(stack.url, 'GET', `/api/admin/activity?kind=admin&accountId=${admin.id}`, { headers: bearer(admin.accessToken) });
    expect(types(admins)).toContain('signed_in');

    // Users read no one else's.
    expect((await call(stack.url, 'GET', `/api/admin/users/${user.id}/activity`, { headers: bearer(user.accessToken) })).status).toBe(403);
    expect((await call(stack.url, 'GET', '/api/admin/activity?kind=robot', { headers: bearer(admin.accessToken) })).status).toBe(400);
  });

  it('drops a deleted account’s history but its deletion, which stays in the admins’ log', async () => {
    const admin = await registerAndLogin(stack, 'admin');
    const user = await registerAndLogin(stack);
    expect((await call(stack.url, 'DELETE', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken) })).status).toBe(200);
    const log = await call(stack.url, 'GET', `/api/admin/activity?accountId=${user.id}`, { headers: bearer(admin.accessToken) });
    expect(log.body.data.activity.map((e: { type: string; actor?: { id: string } }) => [e.type, e.actor?.id])).toEqual([['account_deleted', admin.id]]);
  });
});
