// The reads the apps and the admin panel need: a user's own profile, avatar and sessions; an
// admin's list, search and single read of users. Same access rules as the admin routes: a session
// of the right kind, still alive.
import { call, cookieValue } from '@acct/test-harness/http-client';
import { buildAccount, registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
let admin: Awaited<ReturnType<typeof registerAndLogin>>;
beforeAll(async () => {
  stack = await startStack('reads', { auth: { ADMIN_REGISTRATION_OPEN: 'true' } });
  admin = await registerAndLogin(stack, 'admin');
});
afterAll(() => stack.stop());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 3)]);

/** Another login of the same user: a second session. */
async function loginAgain(account: { email: string; password: string }, userAgent = 'ReadsTest/1.0 (second device)') {
  const res = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password }, headers: { 'user-agent': userAgent } });
  return { accessToken: res.body.data.accessToken as string, refresh: cookieValue(res.setCookies, 'userRefreshToken') as string };
}
const refresh = (token: string) => call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${token}` });

describe('GET /api/auth/user/me', () => {
  it('answers the signed-in user their own profile, without secrets', async () => {
    const user = await registerAndLogin(stack);
    const res = await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer(user.accessToken) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      success: true,
      message: 'User profile',
      data: { user: { id: user.id, name: user.account.name, email: user.account.email, role: 'user', disabled: false, createdAt: expect.any(String), updatedAt: expect.any(String) } },
    });
  });

  it('answers 401 without a token, 403 for an admin, and 401 session_revoked after logout', async () => {
    expect((await call(stack.url, 'GET', '/api/auth/user/me')).body).toMatchObject({ code: 'unauthorized' });
    expect((await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer(admin.accessToken) })).status).toBe(403);
    const user = await registerAndLogin(stack);
    await call(stack.url, 'POST', '/api/auth/user/logout', { cookie: `userRefreshToken=${user.refresh}` });
    const res = await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer(user.accessToken) });
    expect([res.status, res.body.code]).toEqual([401, 'session_revoked']);
  });

  it('answers every change at once, whoever made it: the owner, an admin, a disable (the replica copies what it shows)', async () => {
    const user = await registerAndLogin(stack);
    const me = async () => (await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer(user.accessToken) })).body;
    expect((await me()).data.user.name).toBe(user.account.name);
    expect((await me()).data.user.name).toBe(user.account.name);
    expect((await call(stack.url, 'PUT', '/api/auth/user/me', { headers: bearer(user.accessToken), body: { name: 'Own Name' } })).status).toBe(200);
    expect((await me()).data.user.name).toBe('Own Name');
    expect((await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken), body: { name: 'Admin Name' } })).status).toBe(200);
    expect((await me()).data.user.name).toBe('Admin Name');
    expect((await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken), body: { disabled: true } })).status).toBe(200);
    // A disable ends the sessions: the token is refused before any profile is read.
    expect((await me()).code).toBe('session_revoked');
  });

  it('serves the user their own avatar once an admin stored one, 404 before', async () => {
    const user = await registerAndLogin(stack);
    const before = await call(stack.url, 'GET', '/api/auth/user/me/avatar', { headers: bearer(user.accessToken) });
    expect([before.status, before.body.code]).toEqual([404, 'avatar_not_found']);
    const form = new FormData();
    form.append('avatar', new Blob([PNG], { type: 'image/png' }), 'a.png');
    expect((await fetch(`${stack.url}/api/admin/users/${user.id}/avatar`, { method: 'PUT', body: form, headers: bearer(admin.accessToken) })).status).toBe(200);
    const res = await fetch(`${stack.url}/api/auth/user/me/avatar`, { headers: bearer(user.accessToken) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
  });
});

describe('The owner changes their own profile: PUT /api/auth/user/me, PUT and DELETE /api/auth/user/me/avatar', () => {
  const putMe = (token: string, body: unknown) => call(stack.url, 'PUT', '/api/auth/user/me', { body, headers: bearer(token) });
  const putAvatar = async (token: string, content: Buffer) => {
    const form = new FormData();
    form.append('avatar', new Blob([content], { type: 'image/png' }), 'me.png');
    const res = await fetch(`${stack.url}/api/auth/user/me/avatar`, { method: 'PUT', body: form, headers: bearer(token) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const activityTypes = async (token: string) =>
    ((await call(stack.url, 'GET', '/api/auth/user/activity', { headers: bearer(token) })).body.data.activity as Array<{ type: string; actor?: unknown; details?: string[] }>).filter((e) => e.type !== 'signed_in');

  it('changes the name, trimmed, recorded on the account’s activity as the owner’s own act', async () => {
    const user = await registerAndLogin(stack);
    const res = await putMe(user.accessToken, { name: '  Grace H ' });
    expect([res.status, res.body.message, res.body.data.user.name]).toEqual([200, 'Profile updated', 'Grace H']);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer(user.accessToken) })).body.data.user.name).toBe('Grace H');
    const [entry] = await activityTypes(user.accessToken);
    expect(entry).toMatchObject({ type: 'profile_updated', details: ['name'] });
    expect(entry.actor).toBeUndefined();
  });

  it('refuses a missing or malformed name, and any other field (the address and password have their own routes)', async () => {
    const user = await registerAndLogin(stack);
    expect([(await putMe(user.accessToken, {})).status, (await putMe(user.accessToken, {})).body.message]).toEqual([400, 'Please provide name']);
    const short = await putMe(user.accessToken, { name: 'G' });
    expect([short.status, short.body.message]).toEqual([400, 'Name must be 2-20 characters']);
    for (const body of [{ name: 'Grace', email: buildAccount().email }, { password: 'another-long-password' }, { name: 'Grace', disabled: false }]) {
      const res = await putMe(user.accessToken, body);
      expect([res.status, res.body.message]).toEqual([400, 'Only name can be changed here; the email address and the password have their own routes']);
    }
    expect((await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer(user.accessToken) })).body.data.user.name).toBe(user.account.name);
    expect((await putMe(admin.accessToken, { name: 'Admin Name' })).status).toBe(403);
  });

  it('replaces and removes the avatar: the image served back, then 404, and a second removal 404', async () => {
    const user = await registerAndLogin(stack);
    const stored = await putAvatar(user.accessToken, PNG);
    expect([stored.status, stored.body.message, stored.body.data.user.avatar.contentType]).toEqual([200, 'Avatar updated successfully', 'image/png']);
    const image = await fetch(`${stack.url}/api/auth/user/me/avatar`, { headers: bearer(user.accessToken) });
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
    const notImage = await putAvatar(user.accessToken, Buffer.from('MZ not an image at all'));
    expect([notImage.status, notImage.body.message]).toEqual([415, 'Avatar must be a PNG, JPEG or WebP image']);

    const removed = await call(stack.url, 'DELETE', '/api/auth/user/me/avatar', { headers: bearer(user.accessToken) });
    expect([removed.status, removed.body.message]).toEqual([200, 'Avatar removed']);
    expect(removed.body.data.user.avatar ?? null).toBeNull();
    expect((await call(stack.url, 'GET', '/api/auth/user/me/avatar', { headers: bearer(user.accessToken) })).status).toBe(404);
    const again = await call(stack.url, 'DELETE', '/api/auth/user/me/avatar', { headers: bearer(user.accessToken) });
    expect([again.status, again.body.code]).toEqual([404, 'avatar_not_found']);
    expect((await activityTypes(user.accessToken)).map((e) => e.type)).toEqual(['avatar_removed', 'avatar_replaced']);
  });
});

describe('GET /api/admin/users and /api/admin/users/{user_id}', () => {
  const marker = `Zq${Math.random().toString(36).slice(2, 6)}`;
  const created: Array<{ id: string; email: string }> = [];
  beforeAll(async () => {
    for (let i = 0; i < 3; i++) {
      const account = buildAccount({ name: `${marker} ${i}` });
      const res = await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
      created.push({ id: res.body.data.user.id, email: account.email });
    }
  });
  const list = (query: string, token = admin.accessToken) => call(stack.url, 'GET', `/api/admin/users?${query}`, { headers: bearer(token) });

  it('searches by name or email in any letter case, in pages that end with a null cursor', async () => {
    const first = await list(`query=${marker.toUpperCase()}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.message).toBe('Users');
    expect(first.body.data.users.map((u: { id: string }) => u.id)).toEqual(created.slice(0, 2).map((u) => u.id));
    expect(first.body.data.nextCursor).toBe(created[1].id);
    const second = await list(`query=${marker}&limit=2&cursor=${first.body.data.nextCursor}`);
    expect(second.body.data).toEqual({ users: [expect.objectContaining({ id: created[2].id, name: `${marker} 2` })], nextCursor: null });
    const byEmail = await list(`query=${encodeURIComponent(created[0].email.toUpperCase())}`);
    expect(byEmail.body.data.users.map((u: { id: string }) => u.id)).toEqual([created[0].id]);
  });

  it('when the matches fill the last page exactly, then nextCursor is null', async () => {
    const page = await list(`query=${marker}&limit=3`);
    expect(page.body.data.users).toHaveLength(3);
    expect(page.body.data.nextCursor).toBeNull();
    const byOne = await list(`query=${marker}&limit=1&cursor=${created[1].id}`);
    expect(byOne.body.data).toEqual({ users: [expect.objectContaining({ id: created[2].id })], nextCursor: null });
  });

  it.each([
    ['query=a&query=b', 'query must be at most 100 characters'],
    ['cursor=0123456789abcdef01234567&cursor=0123456789abcdef01234568', 'Invalid cursor'],
    ['limit=1&limit=2', 'limit must be a whole number from 1 to 100'],
  ])('when a parameter is repeated (%s), then it answers 400, never a 500', async (query, message) => {
    const res = await list(query);
    expect([res.status, res.body.message]).toEqual([400, message]);
  });

  it('treats the query as text, not a pattern', async () => {
    const res = await list('query=.*');
    expect(res.status).toBe(200);
    expect(res.body.data.users).toEqual([]);
  });

  it.each([
    ['limit=0', 'limit must be a whole number from 1 to 100'],
    ['limit=101', 'limit must be a whole number from 1 to 100'],
    ['limit=ten', 'limit must be a whole number from 1 to 100'],
    ['cursor=nope', 'Invalid cursor'],
    [`query=${'x'.repeat(101)}`, 'query must be at most 100 characters'],
  ])('refuses %s with 400', async (query, message) => {
    const res = await list(query);
    expect([res.status, res.body.message]).toEqual([400, message]);
  });

  it('reads one user, 404 for an unknown id and 400 for a malformed one', async () => {
    const res = await call(stack.url, 'GET', `/api/admin/users/${created[0].id}`, { headers: bearer(admin.accessToken) });
    expect(res.body).toEqual({ success: true, message: 'User', data: { user: expect.objectContaining({ id: created[0].id, email: created[0].email }) } });
    expect((await call(stack.url, 'GET', '/api/admin/users/0123456789abcdef01234567', { headers: bearer(admin.accessToken) })).body.code).toBe('user_not_found');
    expect((await call(stack.url, 'GET', '/api/admin/users/xyz', { headers: bearer(admin.accessToken) })).status).toBe(400);
  });

  it('is for live admin sessions only', async () => {
    const user = await registerAndLogin(stack);
    expect((await call(stack.url, 'GET', '/api/admin/users')).status).toBe(401);
    expect((await list('limit=1', user.accessToken)).status).toBe(403);
    expect((await call(stack.url, 'GET', `/api/admin/users/${created[0].id}`, { headers: bearer(user.accessToken) })).status).toBe(403);
    const session = await registerAndLogin(stack, 'admin');
    await call(stack.url, 'POST', '/api/auth/admin/logout', { cookie: `adminRefreshToken=${session.refresh}` });
    expect((await list('limit=1', session.accessToken)).body.code).toBe('session_revoked');
  });
});

describe("a user's sessions", () => {
  it('lists the live ones, newest first, marking the current one', async () => {
    const user = await registerAndLogin(stack);
    const second = await loginAgain(user.account);
    const res = await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: bearer(second.accessToken) });
    expect(res.status).toBe(200);
    const sessions = res.body.data.sessions as Array<{ id: string; current: boolean; createdAt: string; lastUsedAt: string; expiresAt: string; ip: string | null; userAgent: string | null }>;
    expect(sessions).toHaveLength(2);
    expect(sessions.map((s) => s.current)).toEqual([true, false]);
    // Where each was opened from, as the owner recognises it: the sign-in's address and User-Agent.
    for (const session of sessions) expect(session.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
    expect(sessions[0].userAgent).toBe('ReadsTest/1.0 (second device)');
    expect(sessions[1].userAgent).not.toBe('ReadsTest/1.0 (second device)');
    expect(second.refresh.startsWith(`${sessions[0].id}.`)).toBe(true);
    expect(Date.parse(sessions[0].expiresAt)).toBeGreaterThan(Date.now());
    // No secret of a session is shown.
    expect(res.text).not.toContain(user.refresh.split('.')[1]);
  });

  it('signs one out: its refresh token stops working, the others go on', async () => {
    const user = await registerAndLogin(stack);
    const second = await loginAgain(user.account);
    const firstId = user.refresh.split('.')[0];
    const res = await call(stack.url, 'DELETE', `/api/auth/user/sessions/${firstId}`, { headers: bearer(second.accessToken) });
    expect(res.body).toEqual({ success: true, message: 'Session signed out' });
    expect((await refresh(user.refresh)).status).toBe(401);
    expect((await refresh(second.refresh)).status).toBe(200);
    const again = await call(stack.url, 'DELETE', `/api/auth/user/sessions/${firstId}`, { headers: bearer(second.accessToken) });
    expect([again.status, again.body.code]).toEqual([404, 'session_not_found']);
  });

  it("cannot sign out another user's session", async () => {
    const victim = await registerAndLogin(stack);
    const attacker = await registerAndLogin(stack);
    const res = await call(stack.url, 'DELETE', `/api/auth/user/sessions/${victim.refresh.split('.')[0]}`, { headers: bearer(attacker.accessToken) });
    expect(res.status).toBe(404);
    expect((await refresh(victim.refresh)).status).toBe(200);
  });

  it('signs out all others and keeps the one asking', async () => {
    const user = await registerAndLogin(stack);
    const second = await loginAgain(user.account);
    const third = await loginAgain(user.account);
    const res = await call(stack.url, 'POST', '/api/auth/user/sessions/sign-out-others', { headers: bearer(third.accessToken) });
    expect(res.body).toEqual({ success: true, message: 'Other sessions signed out', data: { signedOut: 2 } });
    expect((await refresh(user.refresh)).status).toBe(401);
    expect((await refresh(second.refresh)).status).toBe(401);
    expect((await refresh(third.refresh)).status).toBe(200);
    const left = await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: bearer(third.accessToken) });
    expect(left.body.data.sessions.map((s: { current: boolean }) => s.current)).toEqual([true]);
  });

  it('is for live user sessions only', async () => {
    expect((await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: bearer(admin.accessToken) })).status).toBe(403);
    expect((await call(stack.url, 'POST', '/api/auth/user/sessions/sign-out-others')).status).toBe(401);
  });
});
