import mongoose from 'mongoose';
import { call } from '@acct/test-harness/http-client';
import { testUrls } from '@acct/test-harness/isolation';
import { until } from '@acct/test-harness/until';
import { buildAccount, registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('reset');
});
afterAll(() => stack.stop());

const GENERIC = 'If that email is registered, a reset link has been sent.';
async function queuedRequests(): Promise<number> {
  const conn = await mongoose.createConnection(testUrls().mongo, { dbName: `${stack.names.mongoDb}_auth` }).asPromise();
  const count = await conn.collection('password_reset_requests').countDocuments();
  await conn.close();
  return count;
}

const tokenOf = (url: string) => new URL(url).searchParams.get('token') as string;

describe('forgot-password', () => {
  it.each(['user', 'admin'] as const)('answers the %s route with the same words whether or not the email exists', async (kind) => {
    const known = await call(stack.url, 'POST', '/api/auth/user/register', { body: buildAccount() });
    const email = known.body.data.user.email;
    const a = await call(stack.url, 'POST', `/api/auth/${kind}/forgot-password`, { body: { email } });
    const b = await call(stack.url, 'POST', `/api/auth/${kind}/forgot-password`, { body: { email: buildAccount().email } });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body).toEqual({ success: true, message: GENERIC });
    expect(b.body).toEqual(a.body);
  });

  it.each([
    ['user', {}, 'Please provide a valid email'],
    ['user', { email: '   ' }, 'Please provide a valid email'],
    ['user', { email: 42 }, 'Please provide a valid email'],
    ['user', { email: ' not-an-email ' }, 'Invalid email format'],
    ['admin', {}, 'Please provide email'],
    ['admin', { email: '' }, 'Please provide email'],
  ] as const)('validates the %s route: %j answers 400 %s', async (kind, body, message) => {
    const res = await call(stack.url, 'POST', `/api/auth/${kind}/forgot-password`, { body });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it('accepts an admin email that is not an email, and answers the generic words without looking it up', async () => {
    const find = jest.spyOn(mongoose.Model, 'findOne');
    try {
      const notAnAddress = `not an address ${Date.now()}`;
      for (const email of [{ $ne: null }, 42, notAnAddress]) {
        const res = await call(stack.url, 'POST', '/api/auth/admin/forgot-password', { body: { email } });
        expect(res.status).toBe(200);
        expect(res.body.message).toBe(GENERIC);
      }
      await new Promise((r) => setTimeout(r, 200));
      // Other tests' queued requests may be looked up meanwhile; none of these inputs may be.
      const lookups = find.mock.calls.map(([filter]) => (filter as { email?: unknown } | undefined)?.email);
      expect(lookups.filter((email) => typeof email !== 'string' || email.includes('not an address'))).toEqual([]);
    } finally {
      find.mockRestore();
    }
  });

  it('keys the per-address limit by the normalised email: case and surrounding spaces give no fresh budget', async () => {
    const limited = await startStack('resetlimit', { auth: { RATE_FORGOT_EMAIL_IP_PER_HOUR: '2' } });
    try {
      const email = buildAccount().email;
      const send = (value: string) => call(limited.url, 'POST', '/api/auth/user/forgot-password', { body: { email: value } });
      expect((await send(email)).status).toBe(200);
      expect((await send(`  ${email.toUpperCase()}  `)).status).toBe(200);
      expect((await send(` ${email}`)).status).toBe(429);
    } finally {
      await limited.stop();
    }
  });

  it('trims the user email and sends a reset link event for it', async () => {
    const { account, id } = await registerAndLogin(stack);
    await call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email: `  ${account.email}  ` } });
    const event = await stack.events.waitFor('account.password_reset.requested', (p) => p.accountId === id);
    expect(event.payload).toMatchObject({ kind: 'user', email: account.email, resetUrl: expect.stringContaining('token=') });
  });
});

describe('reset-password', () => {
  async function resetLink() {
    const session = await registerAndLogin(stack);
    await call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email: session.account.email } });
    const event = await stack.events.waitFor('account.password_reset.requested', (p) => p.accountId === session.id);
    return { ...session, token: tokenOf(event.payload.resetUrl) };
  }

  it('replaces the password, revokes every session, and works once only', async () => {
    const { token, account, refresh, id } = await resetLink();
    const res = await call(stack.url, 'POST', '/api/auth/user/reset-password', { body: { token, newPassword: 'a brand new secret' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Password reset successfully' });
    expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${refresh}` })).status).toBe(401);
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } })).status).toBe(401);
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'a brand new secret' } })).status).toBe(200);
    const again = await call(stack.url, 'POST', '/api/auth/user/reset-password', { body: { token, newPassword: 'another new secret' } });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('Invalid or expired reset token');
    await stack.events.waitFor('account.password_reset.completed', (p) => p.accountId === id);
  });

  it('refuses a user reset token on the admin route, without using it up', async () => {
    const { token, account } = await resetLink();
    const res = await call(stack.url, 'POST', '/api/auth/admin/reset-password', { body: { token, newPassword: 'a brand new secret' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Invalid or expired reset token');
    expect((await call(stack.url, 'POST', '/api/auth/user/reset-password', { body: { token, newPassword: 'a brand new secret' } })).status).toBe(200);
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'a brand new secret' } })).status).toBe(200);
  });

  it('refuses an expired reset token', async () => {
    const { token, id } = await resetLink();
    const conn = await mongoose.createConnection(testUrls().mongo, { dbName: `${stack.names.mongoDb}_auth` }).asPromise();
    await conn.collection('password_resets').updateMany({ accountId: id }, { $set: { expiresAt: new Date(Date.now() - 1_000) } });
    await conn.close();
    const res = await call(stack.url, 'POST', '/api/auth/user/reset-password', { body: { token, newPassword: 'a brand new secret' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Invalid or expired reset token');
  });

  it('sends no reset mail to a disabled account', async () => {
    const { account, id } = await registerAndLogin(stack);
    const conn = await mongoose.createConnection(testUrls().mongo, { dbName: `${stack.names.mongoDb}_auth` }).asPromise();
    await conn.collection('users').updateOne({ email: account.email }, { $set: { disabled: true } });
    await conn.close();
    const res = await call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email: account.email }, headers: { 'x-request-id': `disabled-${id}` } });
    expect(res.status).toBe(200);
    // The queue is answered within RESET_REQUEST_POLL_MS (50 ms here); wait well past it.
    await until(() => queuedRequests().then((n) => n === 0));
    await new Promise((r) => setTimeout(r, 200));
    expect(stack.events.received.some((e) => e.payload.requestId === `disabled-${id}`)).toBe(false);
  });

  it.each([
    [{}, 'Please provide token and newPassword'],
    [{ token: 'abc' }, 'Please provide token and newPassword'],
    [{ newPassword: 'long enough' }, 'Please provide token and newPassword'],
    [{ token: 'abc', newPassword: 'short' }, 'Password must be 8-128 characters'],
    [{ token: 'abc', newPassword: 'long enough' }, 'Invalid or expired reset token'],
  ])('validates %j with 400 %s', async (body, message) => {
    const res = await call(stack.url, 'POST', '/api/auth/user/reset-password', { body });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });
});
