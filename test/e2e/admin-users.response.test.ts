import { call } from '@acct/test-harness/http-client';
import { buildAccount, registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
let admin: Awaited<ReturnType<typeof registerAndLogin>>;
beforeAll(async () => {
  stack = await startStack('adminusers', { auth: { ADMIN_REGISTRATION_OPEN: 'true' } });
  admin = await registerAndLogin(stack, 'admin');
});
afterAll(() => stack.stop());

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

  it('validates with the register rules and clear messages', async () => {
    const user = await registerAndLogin(stack);
    expect((await put(user.id, {})).body.message).toBe('Provide at least one of name, email, disabled or password');
    expect((await put(user.id, { name: 'x' })).body.message).toBe('Name must be 2-20 characters');
    expect((await put(user.id, { email: 'nope' })).body.message).toBe('Invalid email format');
    expect((await put(user.id, { disabled: 'yes' })).body.message).toBe('disabled must be true or false');
    expect((await put(user.id, { password: 'short' })).body.message).toBe('Password must be 8-128 characters');
  });

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
