// What admins and owners read and change through the API: users, the console's reads, sessions and
// identities, and the activity history.

import { call, cookieValue } from '@acct/test-harness/http-client';
import { sharedStack, type SharedStack } from '@acct/test-stack/shared';
import { buildAccount, registerAndLogin } from '@acct/test-harness/factories';
import { proofRunsOut } from '@acct/test-harness/isolation';

// One handle on the run's shared stack for every block below.
let stack: SharedStack;
beforeAll(async () => {
  stack = await sharedStack();
});
afterAll(() => stack.stop());

describe('admin-users.response', () => {
  let admin: Awaited<ReturnType<typeof registerAndLogin>>;
  beforeAll(async () => {
    admin = await registerAndLogin(stack, 'admin');
  });

  const asAdmin = () => ({ authorization: `Bearer ${admin.accessToken}` });
  const put = (id: string, body: unknown, headers = asAdmin()) => call(stack.url, 'PUT', `/api/admin/users/${id}`, { body, headers });

  const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]);
  const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 1)]);
  const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP'), Buffer.alloc(50, 2)]);
  const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(300, 0x90)]);

  async function uploadAvatar(id: string, content: Buffer, filename = 'avatar.png', type = 'image/png', field = 'avatar', headers: Record<string, string> = asAdmin()) {
    const form = new FormData();
    form.append(field, new Blob([content], { type }), filename);
    const res = await fetch(`${stack.url}/api/admin/users/${id}/avatar`, { method: 'PUT', body: form, headers });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  }

  describe('PUT /api/admin/users/{user_id}', () => {
    it('answers 401 without a session and 403 for a user session', async () => {
      const user = await registerAndLogin(stack);
      expect((await put(user.id, { name: 'New Name' }, {} as never)).status).toBe(401);
      const res = await put(user.id, { name: 'New Name' }, { authorization: `Bearer ${user.accessToken}` });
      expect(res.status).toBe(403);
    });

    it('updates the name and email and answers the user record', async () => {
      const user = await registerAndLogin(stack);
      const email = buildAccount().email;
      const res = await put(user.id, { name: '  Renamed ', email: email.toUpperCase() });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('User updated successfully');
      expect(res.body.data.user).toMatchObject({ id: user.id, name: 'Renamed', email });
      expect(res.text).not.toMatch(/passwordHash/);
    });

    // The body's rules and their words moved down (issue 66) to services/auth/test/domain/
    // admin-users.test.ts ("refuses … with its 400, changing nothing").

    it('answers 400 for a malformed id and 404 for an unknown one, never 500', async () => {
      expect((await put('not-an-id', { name: 'Valid' })).status).toBe(400);
      expect((await put('abcdefghijkl', { name: 'Valid' })).status).toBe(400);
      const res = await put('0123456789abcdef01234567', { name: 'Valid' });
      expect(res.status).toBe(404);
      expect(res.body.message).toBe('User not found');
    });

    it('answers 409 for a taken email', async () => {
      const a = await registerAndLogin(stack);
      const b = await registerAndLogin(stack);
      const res = await put(b.id, { email: a.account.email });
      expect(res.status).toBe(409);
    });

    it('disabling ends every session and blocks login; enabling lets the user back in', async () => {
      const user = await registerAndLogin(stack);
      expect((await put(user.id, { disabled: true })).body.data.user.disabled).toBe(true);
      expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${user.refresh}` })).status).toBe(401);
      const login = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } });
      expect(login.status).toBe(403);
      await put(user.id, { disabled: false });
      expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } })).status).toBe(200);
    });

    it('setting a password ends every session and the new one works', async () => {
      const user = await registerAndLogin(stack);
      await put(user.id, { password: 'set by the admin' });
      expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${user.refresh}` })).status).toBe(401);
      expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: 'set by the admin' } })).status).toBe(200);
    });
  });

  describe('PUT and GET /api/admin/users/{user_id}/avatar', () => {
    it.each([
      ['PNG', PNG, 'image/png'],
      ['JPEG', JPEG, 'image/jpeg'],
      ['WebP', WEBP, 'image/webp'],
    ])('stores a %s by its content and serves it back', async (_name, content, type) => {
      const user = await registerAndLogin(stack);
      const res = await uploadAvatar(user.id, content, 'whatever.bin', 'application/octet-stream');
      expect(res.status).toBe(200);
      expect(res.body.data.user.avatar).toMatchObject({ contentType: type, size: content.length });
      const back = await fetch(`${stack.url}/api/admin/users/${user.id}/avatar`, { headers: asAdmin() });
      expect(back.status).toBe(200);
      expect(back.headers.get('content-type')).toBe(type);
      expect(Buffer.from(await back.arrayBuffer()).equals(content)).toBe(true);
    });

    it('replaces the previous avatar', async () => {
      const user = await registerAndLogin(stack);
      await uploadAvatar(user.id, PNG);
      await uploadAvatar(user.id, JPEG);
      const back = await fetch(`${stack.url}/api/admin/users/${user.id}/avatar`, { headers: asAdmin() });
      expect(back.headers.get('content-type')).toBe('image/jpeg');
    });

    it('refuses an executable renamed .png with 415', async () => {
      const user = await registerAndLogin(stack);
      const res = await uploadAvatar(user.id, EXE, 'avatar.png', 'image/png');
      expect(res.status).toBe(415);
      expect(res.body.message).toBe('Avatar must be a PNG, JPEG or WebP image');
    });

    it('refuses a file over 2 MiB with 413', async () => {
      const user = await registerAndLogin(stack);
      const big = Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]);
      const res = await uploadAvatar(user.id, big);
      expect(res.status).toBe(413);
    });

    it('answers clear 4xx for a missing file, a wrong field, no session, and a user without avatar', async () => {
      const user = await registerAndLogin(stack);
      expect((await uploadAvatar(user.id, PNG, 'a.png', 'image/png', 'picture')).status).toBe(400);
      expect((await call(stack.url, 'PUT', `/api/admin/users/${user.id}/avatar`, { body: { avatar: 'x' }, headers: asAdmin() })).status).toBe(400);
      expect((await uploadAvatar(user.id, PNG, 'a.png', 'image/png', 'avatar', {})).status).toBe(401);
      expect((await call(stack.url, 'GET', `/api/admin/users/${user.id}/avatar`, { headers: asAdmin() })).status).toBe(404);
      expect((await uploadAvatar('0123456789abcdef01234567', PNG)).status).toBe(404);
    });
  });
});

// What the admin console reads and does beyond the contract (issue 48, item 2): a user's sessions
// (ending one, or all), identities, the admin accounts; and an act that cannot be undone asks for the
// admin's recent proof, whatever their token.
describe('admin-console.response', () => {


  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

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
    await proofRunsOut(stack, admin.accessToken);
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
    await proofRunsOut(stack, admin.accessToken);
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
});

// The reads the apps and the admin panel need: a user's own profile, avatar and sessions; an
// admin's list, search and single read of users. Same access rules as the admin routes: a session
// of the right kind, still alive.
describe('reads.response', () => {
  let admin: Awaited<ReturnType<typeof registerAndLogin>>;
  beforeAll(async () => {
    admin = await registerAndLogin(stack, 'admin');
  });

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
        expect([res.status, res.body.message]).toEqual([400, 'Only name and language can be changed here; the email address and the password have their own routes']);
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
});

// The activity history (issue 48): what happened to an account, read back by its owner and by admins,
// each entry with the request's address and device and, for an admin's act, who (to admins only);
// paged newest first, filtered, bounded per account, and gone with the account but for its deletion.
describe('activity.response', () => {
  const DEVICE = 'ActivityTest/1.0 (test device)';


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
});
