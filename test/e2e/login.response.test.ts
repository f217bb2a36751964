import bcrypt from 'bcrypt';
import mongoose from 'mongoose';
import { call, cookieValue } from '@acct/test-harness/http-client';
import { buildAccount, registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';
import { testUrls } from '@acct/test-harness/isolation';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('login');
});
afterAll(() => stack.stop());

describe.each(['user', 'admin'] as const)('POST /api/auth/%s/login validation', (kind) => {
  it.each([
    ['nothing', {}, 'Please provide email and password'],
    ['no password and a bad email', { email: 'bad' }, 'Please provide email and password'],
    ['an empty password', { email: 'a@b.co', password: '' }, 'Please provide email and password'],
    ['a bad email', { email: 'a@b', password: 'whatever' }, 'Invalid email format'],
    ['a numeric email', { email: 12, password: 'whatever' }, 'Invalid email format'],
  ])('when given %s, then it answers 400 %s', async (_case, body, message) => {
    const res = await call(stack.url, 'POST', `/api/auth/${kind}/login`, { body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, message });
  });
});

describe('POST /api/auth/user/login', () => {
  it('when the credentials are right, then it answers 200 with accessToken, user and the refresh cookie', async () => {
    const { account, login } = await registerAndLogin(stack);
    expect(login.body).toMatchObject({ success: true, message: 'Login successful' });
    expect(login.body.data.user).toMatchObject({ email: account.email, role: 'user' });
    expect(login.body.data.accessToken.split('.')).toHaveLength(3);
    // The access token's lifetime in seconds, next to the spec's keys (ACCESS_TOKEN_TTL_SECONDS).
    expect(login.body.data.expiresIn).toBe(900);
    // …and the token itself says the same: exp − iat is the lifetime the answer announces.
    const claims = JSON.parse(Buffer.from(login.body.data.accessToken.split('.')[1], 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(login.body.data.expiresIn);
    expect(login.text).not.toContain(cookieValue(login.setCookies, 'userRefreshToken'));
    expect(login.setCookies).toHaveLength(1);
    expect(login.setCookies[0]).toMatch(/^userRefreshToken=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/api\/auth\/user; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
  });

  it('when the email differs only in case, then it still logs in', async () => {
    const account = buildAccount();
    await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    const res = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email.toUpperCase(), password: account.password } });
    expect(res.status).toBe(200);
  });

  it('when the password is wrong, then it answers 401 and sets no cookie', async () => {
    const account = buildAccount();
    await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    const res = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'not the password' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, message: 'Invalid credentials', code: 'invalid_credentials' });
    expect(res.setCookies).toEqual([]);
  });

  it('when the email is unknown, then it answers 401 and logs reason not_found before the request record', async () => {
    const email = buildAccount().email;
    const res = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email, password: 'whatever1' }, headers: { 'x-request-id': `unknown-${email.split("@")[0]}` } });
    expect(res.status).toBe(401);
    const record = stack.logs.audit.find((r) => r.email === email);
    expect(record).toEqual({ level: 'warn', email, ip: '127.0.0.1', reason: 'not_found', message: 'User login failed: invalid credentials', timestamp: expect.stringMatching(/Z$/), request_id: `unknown-${email.split('@')[0]}` });
    await new Promise((r) => setTimeout(r, 10));
    const request = stack.logs.request.find((r) => r.request_id === `unknown-${email.split("@")[0]}`);
    expect(request).toMatchObject({ level: 'warn', status: 401, method: 'POST', path: '/api/auth/user/login', actor_type: 'anonymous' });
    expect(Date.parse(record!.timestamp)).toBeLessThanOrEqual(Date.parse(request!.timestamp));
  });

  it('when the account has no password, then it answers 401 and logs reason no_password', async () => {
    const email = buildAccount().email;
    const conn = await mongoose.createConnection(testUrls().mongo, { dbName: `${stack.names.mongoDb}_auth` }).asPromise();
    await conn.collection('users').insertOne({ email, name: 'No Password', role: 'user', passwordHash: null, disabled: false, createdAt: new Date(), updatedAt: new Date() });
    await conn.close();
    const res = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email, password: 'anything1' } });
    expect(res.status).toBe(401);
    expect(stack.logs.audit.find((r) => r.email === email)).toMatchObject({ level: 'warn', reason: 'no_password', message: 'User login failed: password not set' });
  });

  it('when the password is a number, then it is refused as credentials, not a server error', async () => {
    const account = buildAccount();
    await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    const res = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 12345678 } });
    expect(res.status).toBe(401);
  });

  it('when a user logs in, then a user.login.succeeded event with the user id and ip reaches the exchange', async () => {
    const { id } = await registerAndLogin(stack);
    const event = await stack.events.waitFor('user.login.succeeded', (p) => p.userId === id);
    expect(event.payload).toMatchObject({ userId: id, ip: '127.0.0.1', eventId: event.messageId });
    expect(event.payload.occurredAt).toMatch(/Z$/);
  });
});

describe('POST /api/auth/admin/login without a second factor', () => {
  it('answers 200 with accessToken, admin and the admin cookie, and no push event', async () => {
    const { login, id } = await registerAndLogin(stack, 'admin');
    expect(login.body.message).toBe('Login successful');
    expect(login.body.data.admin).toMatchObject({ id, role: 'admin', twoFactorEnabled: false });
    expect(cookieValue(login.setCookies, 'adminRefreshToken')).toBeDefined();
    expect(cookieValue(login.setCookies, 'userRefreshToken')).toBeUndefined();
  });
});

describe('POST /api/auth/user/login: what a guesser can learn', () => {
  afterEach(() => jest.restoreAllMocks());

  it('when the email is unknown, then it still spends exactly one bcrypt compare, as a wrong password does', async () => {
    const account = buildAccount();
    await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    const compare = jest.spyOn(bcrypt, 'compare');
    await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: buildAccount().email, password: 'whatever1' } });
    expect(compare).toHaveBeenCalledTimes(1);
    compare.mockClear();
    await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'wrong password' } });
    expect(compare).toHaveBeenCalledTimes(1);
  });

  it('when the password is wrong, then it logs reason wrong_password', async () => {
    const account = buildAccount();
    await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'wrong password' } });
    expect(stack.logs.audit.find((r) => r.email === account.email)).toMatchObject({ level: 'warn', reason: 'wrong_password', message: 'User login failed: invalid credentials' });
  });

  it('when the account is disabled, then only the right password learns it (403); a wrong one stays 401', async () => {
    const account = buildAccount();
    await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    const conn = await mongoose.createConnection(testUrls().mongo, { dbName: `${stack.names.mongoDb}_auth` }).asPromise();
    await conn.collection('users').updateOne({ email: account.email }, { $set: { disabled: true } });
    await conn.close();
    const wrong = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'wrong password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe('Invalid credentials');
    const right = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } });
    expect(right.status).toBe(403);
    expect(right.body).toMatchObject({ success: false, message: 'Account is disabled' });
    expect(right.setCookies).toEqual([]);
  });
});
