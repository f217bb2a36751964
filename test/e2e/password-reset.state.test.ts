import { call } from '../harness/http-client';
import { buildAccount, registerAndLogin, startStack, type TestStack } from '../harness/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('reset');
});
afterAll(() => stack.stop());

const GENERIC = 'If that email is registered, a reset link has been sent.';
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
    const res = await call(stack.url, 'POST', '/api/auth/admin/forgot-password', { body: { email: { $ne: null } } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(GENERIC);
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

  it('refuses a user reset token on the admin route', async () => {
    const { token } = await resetLink();
    const res = await call(stack.url, 'POST', '/api/auth/admin/reset-password', { body: { token, newPassword: 'a brand new secret' } });
    expect(res.status).toBe(400);
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
