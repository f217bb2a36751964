// What the admin console reads and does beyond the contract (issue 48, item 2): a user's sessions
// (ending one, or all), identities, the admin accounts; and an act that cannot be undone asks for the
// admin's recent proof, whatever their token.
import { buildAccount, registerAndLogin } from '@acct/test-harness/factories';
import { call } from '@acct/test-harness/http-client';
import { deleteRedisPrefix } from '@acct/test-harness/isolation';
import { startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack('adminconsole', { auth: { ADMIN_REGISTRATION_OPEN: 'true' } });
});
afterAll(() => stack.stop());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** The admin's proof of their login runs out (as after STEP_UP_SECONDS). */
async function proofRunsOut(): Promise<void> {
  await deleteRedisPrefix(stack.redis, `${stack.names.redisPrefix}step-up:`);
}

it('lists a user’s sessions and ends one, then all; each refresh token stops working', async () => {
  const admin = await registerAndLogin(stack, 'admin');
  const user = await registerAndLogin(stack);
  const second = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } });
  const listed = await call(stack.url, 'GET', `/api/admin/users/${user.id}/sessions`, { headers: bearer(admin.accessToken) });
  expect(listed.status).toBe(200);
  expect(listed.body.data.sessions).toHaveLength(2);
  expect(listed.body.data.sessions.every((s: { current: boolean }) => !s.current)).toBe(true);

  const [newest] = listed.body.data.sessions as Array<{ id: string }>;
  expect((await call(stack.url, 'DELETE', `/api/admin/users/${user.id}/sessions/${newest.id}`, { headers: bearer(admin.accessToken) })).status).toBe(200);
  expect((await call(stack.url, 'GET', `/api/admin/users/${user.id}/sessions`, { headers: bearer(admin.accessToken) })).body.data.sessions).toHaveLength(1);
  expect((await call(stack.url, 'DELETE', `/api/admin/users/${user.id}/sessions/${newest.id}`, { headers: bearer(admin.accessToken) })).body.code).toBe('session_not_found');

  expect((await call(stack.url, 'DELETE', `/api/admin/users/${user.id}/sessions`, { headers: bearer(admin.accessToken) })).status).toBe(200);
  for (const refresh of [user.refresh, second.setCookies.find((c) => c.startsWith('userRefreshToken='))!.split(';')[0].split('=')[1]]) {
    expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { headers: { cookie: `userRefreshToken=${refresh}` } })).status).toBe(401);
  }
  // The user reads that an administrator ended them.
  const relogin = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } });
  const activity = await call(stack.url, 'GET', '/api/auth/user/activity?type=sessions_ended', { headers: bearer(relogin.body.data.accessToken) });
  expect(activity.body.data.activity.map((e: { details: string[]; actor?: { kind: string } }) => [e.details[0], e.actor?.kind])).toEqual([
    ['every session', 'admin'],
    ['1 session', 'admin'],
  ]);
});

it('asks for the admin’s recent proof before an act that cannot be undone, and takes it from reauthenticate', async () => {
  const admin = await registerAndLogin(stack, 'admin');
  const user = await registerAndLogin(stack);
  await proofRunsOut();
  for (const [method, path] of [
    ['DELETE', `/api/admin/users/${user.id}`],
    ['DELETE', `/api/admin/users/${user.id}/factors`],
    ['DELETE', `/api/admin/users/${user.id}/sessions`],
    ['DELETE', `/api/admin/users/${user.id}/identities/corp`],
  ]) {
    const refused = await call(stack.url, method, path, { headers: bearer(admin.accessToken) });
    expect([path, refused.status, refused.body.code]).toEqual([path, 403, 'step_up_required']);
  }
  // Reads need none.
  expect((await call(stack.url, 'GET', `/api/admin/users/${user.id}/sessions`, { headers: bearer(admin.accessToken) })).status).toBe(200);
  expect((await call(stack.url, 'GET', `/api/admin/users/${user.id}/identities`, { headers: bearer(admin.accessToken) })).body.data.identities).toEqual([]);

  expect((await call(stack.url, 'POST', '/api/auth/admin/reauthenticate', { headers: bearer(admin.accessToken), body: { password: admin.account.password } })).status).toBe(200);
  expect((await call(stack.url, 'DELETE', `/api/admin/users/${user.id}/identities/corp`, { headers: bearer(admin.accessToken) })).body.code).toBe('identity_not_found');
  expect((await call(stack.url, 'DELETE', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken) })).status).toBe(200);
  expect((await call(stack.url, 'GET', `/api/admin/users/${user.id}/sessions`, { headers: bearer(admin.accessToken) })).body.code).toBe('user_not_found');
});

it('lists the admins, a page at a time; users may not', async () => {
  const first = await registerAndLogin(stack, 'admin');
  const second = await registerAndLogin(stack, 'admin');
  const user = await registerAndLogin(stack);
  const all: string[] = [];
  let cursor = '';
  for (let page = 0; page < 50; page++) {
    const answer = await call(stack.url, 'GET', `/api/admin/admins?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { headers: bearer(first.accessToken) });
    expect(answer.status).toBe(200);
    all.push(...answer.body.data.admins.map((a: { id: string; role: string }) => a.id));
    if (!answer.body.data.nextCursor) break;
    cursor = answer.body.data.nextCursor;
  }
  expect(all).toEqual(expect.arrayContaining([first.id, second.id]));
  expect(new Set(all).size).toBe(all.length);
  expect((await call(stack.url, 'GET', '/api/admin/admins', { headers: bearer(user.accessToken) })).status).toBe(403);
});

it('finds users by whether they are disabled, with the search and paging, and refuses another value', async () => {
  const admin = await registerAndLogin(stack, 'admin');
  const marker = `flag${Date.now().toString(36)}`;
  const users: Array<{ id: string }> = [];
  for (let i = 0; i < 3; i++) {
    const registered = await call(stack.url, 'POST', '/api/auth/user/register', { body: buildAccount({ name: `${marker}${i}` }) });
    users.push(registered.body.data.user);
  }
  expect((await call(stack.url, 'PUT', `/api/admin/users/${users[1].id}`, { headers: bearer(admin.accessToken), body: { disabled: true } })).status).toBe(200);
  const ids = async (flag: string) => {
    const page = await call(stack.url, 'GET', `/api/admin/users?query=${marker}&disabled=${flag}&limit=1`, { headers: bearer(admin.accessToken) });
    const next = await call(stack.url, 'GET', `/api/admin/users?query=${marker}&disabled=${flag}&limit=10&cursor=${page.body.data.nextCursor ?? ''}`, { headers: bearer(admin.accessToken) });
    return [...page.body.data.users, ...(page.body.data.nextCursor ? next.body.data.users : [])].map((u: { id: string }) => u.id);
  };
  expect(await ids('true')).toEqual([users[1].id]);
  expect(await ids('false')).toEqual([users[0].id, users[2].id]);
  const refused = await call(stack.url, 'GET', '/api/admin/users?disabled=yes', { headers: bearer(admin.accessToken) });
  expect([refused.status, refused.body.message]).toEqual([400, 'disabled must be true or false']);
});

it('an admin token without a recent proof cannot move a user’s address, set their password or disable them; with one, the old address is told and can undo', async () => {
  const admin = await registerAndLogin(stack, 'admin');
  const user = await registerAndLogin(stack);
  await proofRunsOut();
  for (const body of [{ email: `taken-${user.id}@example.org` }, { password: 'a password of the intruder' }, { disabled: true }, { name: 'Renamed' }]) {
    const refused = await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken), body });
    expect([Object.keys(body)[0], refused.status, refused.body.code]).toEqual([Object.keys(body)[0], 403, 'step_up_required']);
  }
  expect((await call(stack.url, 'GET', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken) })).body.data.user.email).toBe(user.account.email);

  expect((await call(stack.url, 'POST', '/api/auth/admin/reauthenticate', { headers: bearer(admin.accessToken), body: { password: admin.account.password } })).status).toBe(200);
  const moved = await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken), body: { email: `moved-${user.id}@example.org` } });
  expect(moved.status).toBe(200);
  const notice = await stack.events.waitFor('account.email_change.completed', (p) => p.accountId === user.id);
  expect(notice.payload).toMatchObject({ email: user.account.email, newEmail: `moved-${user.id}@example.org` });
  const undone = await call(stack.url, 'POST', '/api/auth/user/email/undo', { body: { token: new URL(notice.payload.linkUrl).searchParams.get('token') } });
  expect(undone.status).toBe(200);
  expect((await call(stack.url, 'GET', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken) })).body.data.user.email).toBe(user.account.email);
});
