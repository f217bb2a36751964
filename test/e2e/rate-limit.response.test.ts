import { call } from '@acct/test-harness/http-client';
import { buildAccount, startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('ratelimit', {
    auth: { RATE_LOGIN_IP_PER_MINUTE: '1000', RATE_LOGIN_FAILURES_PER_ACCOUNT_IP: '3', RATE_FORGOT_EMAIL_IP_PER_HOUR: '2', RATE_REGISTER_IP_PER_HOUR: '1000' },
  });
});
afterAll(() => stack.stop());

describe('rate limits', () => {
  it('after the allowed failed logins an account backs off with 429 and Retry-After, even with the right password', async () => {
    const account = buildAccount();
    await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    for (let i = 0; i < 3; i++) {
      expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'wrong password' } })).status).toBe(401);
    }
    const res = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.body).toMatchObject({ success: false, code: 'rate_limited' });
  });

  it('a successful login clears the failure count', async () => {
    const account = buildAccount();
    await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    const attempt = (password: string) => call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password } });
    await attempt('wrong password');
    await attempt('wrong password');
    expect((await attempt(account.password)).status).toBe(200);
    await attempt('wrong password');
    await attempt('wrong password');
    expect((await attempt(account.password)).status).toBe(200);
  });

  it('forgot-password is limited per address and client, with the same 429 whether or not it exists', async () => {
    const email = buildAccount().email;
    const send = () => call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email } });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    const res = await send();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('login per IP', () => {
  it('answers 429 past the per-IP budget', async () => {
    const limited = await startStack('ratelimitip', { auth: { RATE_LOGIN_IP_PER_MINUTE: '3' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await call(limited.url, 'POST', '/api/auth/user/login', { body: { email: buildAccount().email, password: 'whatever1' } })).status);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await limited.stop();
    }
  });
});
