import { call, cookieValue } from '@acct/test-harness/http-client';
import { registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';

// The default grace window (10 s): a burst of parallel refreshes on a loaded machine stays inside it.
// The test that waits past the window has a stack of its own with a 1 s window.
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('refresh');
});
afterAll(() => stack.stop());

const refresh = (token: string | undefined, kind: 'user' | 'admin' = 'user') =>
  call(stack.url, 'POST', `/api/auth/${kind}/refresh`, token ? { cookie: `${kind}RefreshToken=${token}` } : {});
const cookieOf = (res: { setCookies: string[] }, kind: 'user' | 'admin' = 'user') => cookieValue(res.setCookies, `${kind}RefreshToken`);

describe('POST /api/auth/user/refresh', () => {
  it('when the cookie is valid, then it answers a new access token and rotates the cookie', async () => {
    const { refresh: first, accessToken } = await registerAndLogin(stack);
    const res = await refresh(first);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Token refreshed');
    expect(Object.keys(res.body.data)).toEqual(['accessToken', 'expiresIn']);
    expect(res.body.data.expiresIn).toBe(900);
    expect(res.body.data.accessToken).not.toBe(accessToken);
    const next = cookieOf(res);
    expect(next).toBeDefined();
    expect(next).not.toBe(first);
    expect(res.setCookies[0]).toMatch(/; Max-Age=604800; Path=\/api\/auth\/user; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
    expect((await refresh(next)).status).toBe(200);
  });

  it('when there is no cookie, then it answers 401', async () => {
    const res = await refresh(undefined);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Refresh token missing');
  });

  it('when the cookie is garbage, then it answers 401 and clears the cookie', async () => {
    const res = await refresh('not-a-token');
    expect(res.status).toBe(401);
    expect(res.setCookies[0]).toMatch(/^userRefreshToken=; Path=\/api\/auth\/user; Expires=Thu, 01 Jan 1970/);
  });

  it('when ten refreshes of one token race, then exactly one successor is minted and every answer carries it', async () => {
    const { refresh: token } = await registerAndLogin(stack);
    const answers = await Promise.all(Array.from({ length: 10 }, () => refresh(token)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const successors = new Set(answers.map((a) => cookieOf(a)));
    expect(successors.size).toBe(1);
    expect((await refresh([...successors][0])).status).toBe(200);
  });

  it('when a rotated-out token comes back within the grace window, then it gets the same successor and nothing is revoked', async () => {
    const { refresh: token } = await registerAndLogin(stack);
    const first = cookieOf(await refresh(token));
    const again = await refresh(token);
    expect(again.status).toBe(200);
    expect(cookieOf(again)).toBe(first);
    expect((await refresh(first)).status).toBe(200);
  });

  it('when a user token is sent in the admin cookie, then the admin route refuses it', async () => {
    const { refresh: token } = await registerAndLogin(stack);
    expect((await refresh(token, 'admin')).status).toBe(401);
    expect((await refresh(token, 'user')).status).toBe(200);
  });
});

describe('POST /api/auth/user/logout', () => {
  it('answers 200, clears the cookie with the same attributes, and revokes the session', async () => {
    const { refresh: token } = await registerAndLogin(stack);
    const res = await call(stack.url, 'POST', '/api/auth/user/logout', { cookie: `userRefreshToken=${token}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Logged out successfully' });
    // On the kind's path, where refresh and logout read it.
    expect(res.setCookies).toEqual(['userRefreshToken=; Path=/api/auth/user; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax']);
    expect((await refresh(token)).status).toBe(401);
  });

  it('without a cookie, answers 200 and clears the cookie all the same', async () => {
    const res = await call(stack.url, 'POST', '/api/auth/admin/logout');
    expect(res.status).toBe(200);
    expect(res.setCookies[0]).toMatch(/^adminRefreshToken=; Path=\/api\/auth\/admin; Expires=Thu, 01 Jan 1970/);
  });

  it('does not end another session of the same account', async () => {
    const { account, refresh: first } = await registerAndLogin(stack);
    const second = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } });
    await call(stack.url, 'POST', '/api/auth/user/logout', { cookie: `userRefreshToken=${first}` });
    expect((await refresh(cookieOf(second))).status).toBe(200);
  });
});

describe('refresh cookies in production', () => {
  it('are Secure and SameSite=None when NODE_ENV is production, and so are the cookies that clear them', async () => {
    const prod = await startStack('refreshprod', { gateway: { NODE_ENV: 'production' } });
    try {
      const { login, refresh } = await registerAndLogin(prod);
      expect(login.setCookies[0]).toMatch(/; HttpOnly; Secure; SameSite=None$/);
      expect(login.setCookies[0]).toMatch(/Max-Age=604800/);
      // Cleared with the attributes it was set with, or a browser keeps the Secure one.
      const failed = await call(prod.url, 'POST', '/api/auth/user/refresh', { cookie: 'userRefreshToken=not-a-token' });
      expect(failed.status).toBe(401);
      expect(failed.setCookies).toEqual(['userRefreshToken=; Path=/api/auth/user; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=None']);
      const out = await call(prod.url, 'POST', '/api/auth/user/logout', { cookie: `userRefreshToken=${refresh}` });
      expect(out.setCookies).toEqual(['userRefreshToken=; Path=/api/auth/user; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=None']);
    } finally {
      await prod.stop();
    }
  });
});

describe('POST /api/auth/user/refresh, past a 1 s grace window', () => {
  let shortGrace: TestStack;
  beforeAll(async () => {
    shortGrace = await startStack('refreshgrace', { auth: { REFRESH_GRACE_SECONDS: '1' } });
  });
  afterAll(() => shortGrace.stop());
  const refreshOn = (on: TestStack, token: string | undefined) => call(on.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${token}` });

  it('when a rotated-out token comes back after the grace window and its successor was never used, then it is a lost answer retried: the same successor, nothing revoked', async () => {
    const { refresh: token, id } = await registerAndLogin(shortGrace);
    const successor = cookieOf(await refreshOn(shortGrace, token));
    await new Promise((r) => setTimeout(r, 1_200));
    const retried = await refreshOn(shortGrace, token);
    expect(retried.status).toBe(200);
    expect(cookieOf(retried)).toBe(successor);
    expect((await refreshOn(shortGrace, successor)).status).toBe(200);
    expect(shortGrace.logs.audit.find((r) => r.event === 'refresh_retry_after_grace' && r.account_id === id)).toMatchObject({ level: 'info' });
    expect(shortGrace.logs.audit.find((r) => r.event === 'refresh_token_reuse' && r.account_id === id)).toBeUndefined();
  });

  it('when a rotated-out token comes back after its successor was used, then the whole session is revoked', async () => {
    const { refresh: token, id } = await registerAndLogin(shortGrace);
    const successor = cookieOf(await refreshOn(shortGrace, token));
    const latest = cookieOf(await refreshOn(shortGrace, successor));
    await new Promise((r) => setTimeout(r, 1_200));
    const replay = await refreshOn(shortGrace, token);
    expect(replay.status).toBe(401);
    expect(replay.setCookies[0]).toMatch(/^userRefreshToken=;/);
    expect((await refreshOn(shortGrace, latest)).status).toBe(401);
    expect(shortGrace.logs.audit.find((r) => r.event === 'refresh_token_reuse' && r.account_id === id)).toMatchObject({ level: 'warn' });
  });
});
