import mongoose from 'mongoose';
import { call } from '@acct/test-harness/http-client';
import { testUrls } from '@acct/test-harness/isolation';
import { buildAccount, startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('register');
});
afterAll(() => stack.stop());

describe.each(['user', 'admin'] as const)('POST /api/auth/%s/register', (kind) => {
  const path = `/api/auth/${kind}/register`;

  it.each([
    ['nothing', {}, 'Please provide name, email and password'],
    ['no password', { name: 'Ann', email: 'ann@example.com' }, 'Please provide name, email and password'],
    ['an empty name', { name: '', email: 'x', password: 'y' }, 'Please provide name, email and password'],
    ['a one-letter name with a bad email', { name: ' A ', email: 'bad', password: 'y' }, 'Name must be 2-20 characters'],
    ['a 21-letter name', { name: 'x'.repeat(21), email: 'ann@example.com', password: 'long enough' }, 'Name must be 2-20 characters'],
    ['a non-string name', { name: 42, email: 'ann@example.com', password: 'long enough' }, 'Name must be 2-20 characters'],
    ['a bad email with a short password', { name: 'Ann', email: 'ann@example', password: 'y' }, 'Invalid email format'],
    ['an email with a space', { name: 'Ann', email: 'an n@example.com', password: 'long enough' }, 'Invalid email format'],
    ['an email in an array', { name: 'Ann', email: ['ann@example.com'], password: 'long enough' }, 'Invalid email format'],
    ['a 7-character password', { name: 'Ann', email: 'ann@example.com', password: '1234567' }, 'Password must be 8-128 characters'],
  ])('when given %s, then it answers 400 with the first failing rule', async (_case, body, message) => {
    const res = await call(stack.url, 'POST', path, { body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, message });
  });

  it('when the JSON is malformed, then it answers 400 Malformed JSON body', async () => {
    const res = await call(stack.url, 'POST', path, { rawBody: '{"name": "Ann",' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, message: 'Malformed JSON body' });
  });

  it('when the body is not JSON at all, then it answers 400 for the missing fields', async () => {
    const res = await call(stack.url, 'POST', path, { rawBody: 'name=Ann', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Please provide name, email and password');
  });
});

describe('POST /api/auth/user/register', () => {
  it('when valid, then it answers 201 with the user record and no secret', async () => {
    const input = buildAccount({ name: '  Zoë  ', email: 'Mixed.Case@Example.com' });
    const res = await call(stack.url, 'POST', '/api/auth/user/register', { body: input });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('User registered successfully');
    expect(res.body.data.user).toMatchObject({ name: 'Zoë', email: 'mixed.case@example.com', role: 'user' });
    expect(typeof res.body.data.user.id).toBe('string');
    expect(res.text).not.toMatch(/password|hash/i);
    expect(res.setCookies).toEqual([]);
  });

  it('when the email is taken in another case, then it answers 409', async () => {
    const input = buildAccount();
    await call(stack.url, 'POST', '/api/auth/user/register', { body: input });
    const res = await call(stack.url, 'POST', '/api/auth/user/register', { body: { ...input, email: input.email.toUpperCase() } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, message: 'Email already registered' });
  });

  it('when ten registrations of one email race, then exactly one wins and the rest answer 409', async () => {
    const input = buildAccount();
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(stack.url, 'POST', '/api/auth/user/register', { body: input })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(9).fill(409)]);
  });
});

describe('POST /api/auth/admin/register (registration policy)', () => {
  // Each test starts with no admin, so the bootstrap is open to it whatever ran before.
  beforeEach(async () => {
    const auth = await mongoose.createConnection(testUrls().mongo, { dbName: `${stack.names.mongoDb}_auth` }).asPromise();
    await auth.collection('admins').deleteMany({});
    await auth.collection('settings').deleteOne({ _id: 'first-admin' } as never);
    await auth.close();
  });

  it('lets the first admin bootstrap, then refuses anonymous callers with 403, and accepts an admin session', async () => {
    const first = buildAccount();
    const created = await call(stack.url, 'POST', '/api/auth/admin/register', { body: first });
    expect(created.status).toBe(201);
    expect(created.body.message).toBe('Admin registered successfully');
    expect(created.body.data.admin).toMatchObject({ email: first.email, role: 'admin' });

    const refused = await call(stack.url, 'POST', '/api/auth/admin/register', { body: buildAccount() });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Admin registration is closed');

    const login = await call(stack.url, 'POST', '/api/auth/admin/login', { body: { email: first.email, password: first.password } });
    expect(login.status).toBe(200);
    const second = await call(stack.url, 'POST', '/api/auth/admin/register', {
      body: buildAccount(),
      headers: { authorization: `Bearer ${login.body.data.accessToken}` },
    });
    expect(second.status).toBe(201);
  });

  it('refuses a user session the right to register admins once the first admin exists', async () => {
    expect((await call(stack.url, 'POST', '/api/auth/admin/register', { body: buildAccount() })).status).toBe(201);
    const user = buildAccount();
    await call(stack.url, 'POST', '/api/auth/user/register', { body: user });
    const login = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.email, password: user.password } });
    const res = await call(stack.url, 'POST', '/api/auth/admin/register', {
      body: buildAccount(),
      headers: { authorization: `Bearer ${login.body.data.accessToken}` },
    });
    expect(res.status).toBe(403);
  });
});

describe('password length boundaries', () => {
  it.each([
    [8, 201],
    [128, 201],
    [7, 400],
    [129, 400],
  ])('a %i-character password answers %i', async (length, status) => {
    const res = await call(stack.url, 'POST', '/api/auth/user/register', { body: buildAccount({ password: 'p'.repeat(length) }) });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.message).toBe('Password must be 8-128 characters');
  });
});
