// Register and login as the contract says them, for both kinds, and email input as an attacker sends it.

import mongoose from 'mongoose';
import { call, cookieValue } from '@acct/test-harness/http-client';
import { testUrls } from '@acct/test-harness/isolation';
import { buildAccount, registerAndLogin } from '@acct/test-stack/stack';
import { sharedStack, type SharedStack } from '@acct/test-stack/shared';
import { scaled } from '@acct/test-harness/time-scale';
import { until } from '@acct/test-harness/until';

// One handle on the run's shared stack for every block below.
let stack: SharedStack;
beforeAll(async () => {
  stack = await sharedStack();
});
afterAll(() => stack.stop());

// Register and login as the contract says them, for both kinds.
describe('sign-in.response', () => {
  describe('register.response', () => {
    describe.each(['user', 'admin'] as const)('POST /api/auth/%s/register', (kind) => {
      const path = `/api/auth/${kind}/register`;

      // Every rule in its order and words is services/auth/test/domain/validation.test.ts's
      // (validateRegister); here, that the route answers them as the contract's 400.
      it.each([
        ['nothing', {}, 'Please provide name, email and password'],
        ['a one-letter name with a bad email', { name: ' A ', email: 'bad', password: 'y' }, 'Name must be 2-20 characters'],
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

    // The registration policy (the first admin, then an admin's session with a recent proof; a
    // stranger or a user's session answered 403 "Admin registration is closed"):
    // services/auth/test/domain/admin-console.test.ts, and the first admin's claim under
    // concurrent asks services/auth/test/mongo-first-admin-claim.state.test.ts.

    // The password's length boundaries (8 and 128 taken, 7 and 129 refused): validateRegister's domain tests.
  });

  describe('login.response', () => {
    describe.each(['user', 'admin'] as const)('POST /api/auth/%s/login validation', (kind) => {
      // Every rule: services/auth/test/domain/validation.test.ts (validateLogin).
      it.each([
        ['nothing', {}, 'Please provide email and password'],
        ['a bad email', { email: 'a@b', password: 'whatever' }, 'Invalid email format'],
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
        // Log lines reach the harness through the services' stdout pipes, a moment after the answer.
        const record = await until(() => stack.logs.audit.find((r) => r.email === email), 2_000, 'the audit record');
        expect(record).toEqual({ level: 'warn', email, ip: '127.0.0.1', reason: 'not_found', message: 'User login failed: invalid credentials', timestamp: expect.stringMatching(/Z$/), request_id: `unknown-${email.split('@')[0]}` });
        const request = await until(() => stack.logs.request.find((r) => r.request_id === `unknown-${email.split('@')[0]}`), 2_000, 'the request record');
        expect(request).toMatchObject({ level: 'warn', status: 401, method: 'POST', path: '/api/auth/user/login', actor_type: 'anonymous' });
        expect(Date.parse(record.timestamp)).toBeLessThanOrEqual(Date.parse(request.timestamp));
      });

      it('when the account has no password, then it answers 401 and logs reason no_password', async () => {
        const email = buildAccount().email;
        const conn = await mongoose.createConnection(testUrls().mongo, { dbName: `${stack.names.mongoDb}_auth` }).asPromise();
        await conn.collection('users').insertOne({ email, name: 'No Password', role: 'user', passwordHash: null, disabled: false, createdAt: new Date(), updatedAt: new Date() });
        await conn.close();
        const res = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email, password: 'anything1' } });
        expect(res.status).toBe(401);
        expect(await until(() => stack.logs.audit.find((r) => r.email === email), 2_000, 'the audit record')).toMatchObject({ level: 'warn', reason: 'no_password', message: 'User login failed: password not set' });
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

      it('when the password is wrong, then it logs reason wrong_password', async () => {
        const account = buildAccount();
        await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
        await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'wrong password' } });
        expect(await until(() => stack.logs.audit.find((r) => r.email === account.email), 2_000, 'the audit record')).toMatchObject({ level: 'warn', reason: 'wrong_password', message: 'User login failed: invalid credentials' });
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
  });
});

// Email input as an attacker sends it, through the stack: a hostile length does not hold up other
// requests, lookalikes are one account, an international address gets its mail, and stored data the
// mail cannot go to never turns a login into a 500. What each validator answers to each input is
// services/auth/test/domain/validation.test.ts's.
describe('email-input.security', () => {
  let adminToken: string;
  let userId: string;
  beforeAll(async () => {
    adminToken = (await registerAndLogin(stack, 'admin')).accessToken;
    userId = (await registerAndLogin(stack)).id;
  });

  const HOSTILE = `a@${'.'.repeat(99_000)}@`;

  describe('a 100 KB hostile email', () => {
    // Every validator's answer to it (400 Invalid email format, in microseconds) is held by
    // services/auth/test/domain/validation.test.ts; here, that the event loop is not held through the stack.
    it('does not hold up a login sent at the same time', async () => {
      const { account } = await registerAndLogin(stack);
      const hostile = Promise.all(Array.from({ length: 5 }, () => call(stack.url, 'POST', '/api/auth/user/login', { body: { email: HOSTILE, password: 'x' } })));
      const started = Date.now();
      const res = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } });
      expect(res.status).toBe(200);
      // A blocked event loop would hold it for the minute the backtracking regex took; see above for the bound.
      expect(Date.now() - started).toBeLessThan(scaled(10_000));
      expect((await hostile).map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    });
  });

  describe('addresses that would break mail later', () => {
    it('an international address that register accepts gets its reset mail (routes and event schemas share one rule)', async () => {
      const email = `josé.${Date.now()}@exämple.com`;
      const reg = await call(stack.url, 'POST', '/api/auth/user/register', { body: buildAccount({ email }) });
      expect(reg.status).toBe(201);
      await call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email } });
      const event = await stack.events.waitFor('account.password_reset.requested', (p) => p.accountId === reg.body.data.user.id);
      expect(event.payload.email).toBe(email);
    });

    it('an admin stored with such an address (data from before the rule) is refused at login with 400, never a 500', async () => {
      const account = buildAccount();
      const reg = await call(stack.url, 'POST', '/api/auth/admin/register', { body: account, headers: { authorization: `Bearer ${adminToken}` } });
      expect(reg.status).toBe(201);
      const stored = `x<${account.email}>`;
      const conn = await mongoose.createConnection(testUrls().mongo, { dbName: `${stack.names.mongoDb}_auth` }).asPromise();
      await conn.collection('admins').updateOne({ email: account.email }, { $set: { email: stored, twoFactorEnabled: true } });
      await conn.close();
      // Before the one rule the login found the account and the code's mail event failed its schema: 500.
      const res = await call(stack.url, 'POST', '/api/auth/admin/login', { body: { email: stored, password: account.password } });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Invalid email format');
    });
  });

  describe('lookalike addresses', () => {
    it('a trailing dot, another letter case and compatibility forms are the same account', async () => {
      const account = buildAccount();
      expect((await call(stack.url, 'POST', '/api/auth/user/register', { body: account })).status).toBe(201);
      const [local, domain] = account.email.split('@');
      const fullwidth = [...local].map((c) => (/[a-z0-9]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');
      for (const email of [`${account.email}.`, account.email.toUpperCase(), `${fullwidth}@${domain}`]) {
        const res = await call(stack.url, 'POST', '/api/auth/user/register', { body: buildAccount({ email }) });
        expect(res.status).toBe(409);
        expect(res.body.message).toBe('Email already registered');
      }
      const login = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: `${account.email.toUpperCase()}.`, password: account.password } });
      expect(login.status).toBe(200);
      expect(login.body.data.user.email).toBe(account.email);
    });

    it('a Cyrillic а in the local part, and a domain ending in an ideographic full stop, are the same account as carol@', async () => {
      const carol = buildAccount({ email: `carol.${Date.now()}@example.com` });
      expect((await call(stack.url, 'POST', '/api/auth/user/register', { body: carol })).status).toBe(201);
      const [local, domain] = carol.email.split('@');
      const cyrillic = local.replace('a', '\u0430');
      const fullStop = `${local}@${domain}\u3002`;
      for (const email of [`${cyrillic}@${domain}`, fullStop, `${cyrillic}@${domain}\u3002`]) {
        const res = await call(stack.url, 'POST', '/api/auth/user/register', { body: buildAccount({ email }) });
        expect([email, res.status, res.body.message]).toEqual([email, 409, 'Email already registered']);
      }
      // The full stop is DNS's dot: signing in with it reaches the same account.
      const login = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: fullStop, password: carol.password } });
      expect(login.status).toBe(200);
      expect(login.body.data.user.email).toBe(carol.email);
    });

    it('an admin cannot move a user onto a lookalike of another account', async () => {
      const taken = buildAccount({ email: `dave.${Date.now()}@example.com` });
      expect((await call(stack.url, 'POST', '/api/auth/user/register', { body: taken })).status).toBe(201);
      const res = await call(stack.url, 'PUT', `/api/admin/users/${userId}`, {
        body: { email: taken.email.replace('a', '\u0430') },
        headers: { authorization: `Bearer ${adminToken}` },
      });
      expect(res.status).toBe(409);
    });
  });
});
