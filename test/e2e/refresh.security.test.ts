// Refresh with rotating tokens in HttpOnly cookies: rotation, reuse, grace and the cookie's attributes.

import net from 'node:net';
import { call, cookieValue } from '@acct/test-harness/http-client';
import { registerAndLogin } from '@acct/test-stack/stack';
import { sharedStack, type SharedStack } from '@acct/test-stack/shared';

// One handle on the run's shared stack for every block below.
let stack: SharedStack;
beforeAll(async () => {
  stack = await sharedStack();
});
afterAll(() => stack.stop());

describe('refresh.state', () => {
  // The default grace window (10 s): a burst of parallel refreshes on a loaded machine stays inside it.
  // What a token coming back after the window means (a lost answer retried, or theft) is
  // services/auth/test/redis-sessions.state.test.ts's; the production cookie's attributes are
  // services/gateway/test/refresh-cookie.test.ts's.

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
});

// Refresh cookies as an attacker sends them, and the caching of answers that carry tokens.
describe('refresh-cookie.security', () => {

  describe('a refresh cookie with bytes no header may carry', () => {
    it.each([
      ['an encoded CR LF', 'abc%0D%0ASet-Cookie:%20x=1'],
      ['an encoded NUL', 'abc%00def'],
      ['encoded non-ASCII', 'caf%C3%A9.token'],
    ])('with %s, refresh answers 401 invalid and clears the cookie, never a 5xx', async (_label, value) => {
      const res = await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${value}` });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, message: 'Invalid or expired refresh token' });
      expect(res.setCookies).toEqual([expect.stringMatching(/^userRefreshToken=; Path=\/api\/auth\/user; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/)]);
      expect(stack.logs.service.filter((r) => r.level === 'error')).toEqual([]);
    });

    it('logout with such a cookie answers 200 and clears it', async () => {
      const res = await call(stack.url, 'POST', '/api/auth/admin/logout', { cookie: 'adminRefreshToken=x%0Ay' });
      expect(res.status).toBe(200);
      expect(cookieValue(res.setCookies, 'adminRefreshToken')).toBe('');
    });

    it('with a raw CR in the header, the request is refused by the HTTP parser with a 4xx', async () => {
      const { port } = new URL(stack.url);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write('POST /api/auth/user/refresh HTTP/1.1\r\nHost: x\r\nCookie: userRefreshToken=a\rb\r\nContent-Length: 0\r\n\r\n');
        });
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString('latin1')));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
        socket.setTimeout(2_000, () => socket.destroy(new Error('no answer')));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
    });
  });

  describe('answers that carry tokens', () => {
    it('login and refresh answer Cache-Control no-store', async () => {
      const { login, refresh } = await registerAndLogin(stack);
      expect(login.headers.get('cache-control')).toBe('no-store');
      const refreshed = await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${refresh}` });
      expect(refreshed.status).toBe(200);
      expect(refreshed.headers.get('cache-control')).toBe('no-store');
    });
  });

  describe('cookie routes called from another site', () => {
    const signedIn = async () => {
      const session = await registerAndLogin(stack);
      return { ...session, cookie: `userRefreshToken=${session.refresh}` };
    };

    it('when a page of another site posts a form to logout, then it answers 403 cross_site_request and the session survives', async () => {
      const { cookie } = await signedIn();
      const res = await call(stack.url, 'POST', '/api/auth/user/logout', {
        cookie,
        rawBody: '',
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'cross_site_request', message: 'Cross-site request refused' });
      expect(res.setCookies).toEqual([]);
      expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie })).status).toBe(200);
    });

    it.each([
      ['an Origin of another site', { origin: 'https://evil.example' }],
      ['the opaque origin of a sandboxed page', { origin: 'null' }],
      ['no Origin but Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
      // Another port is another origin (RFC 6454): a page served on the API host's other port is not the API's own.
      ['an Origin on the API host at another port', { origin: 'OTHER_PORT' }],
    ])('when refresh comes with %s, then it answers 403 and mints nothing', async (_label, given: Record<string, string>) => {
      const url = new URL(stack.url);
      const headers: Record<string, string> = given.origin === 'OTHER_PORT' ? { origin: `${url.protocol}//${url.hostname}:${Number(url.port) === 1 ? 2 : Number(url.port) - 1}` } : given;
      const { cookie } = await signedIn();
      const res = await call(stack.url, 'POST', '/api/auth/admin/refresh', { cookie: cookie.replace('user', 'admin'), headers });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('cross_site_request');
      const user = await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie, headers });
      expect(user.status).toBe(403);
      expect(user.setCookies).toEqual([]);
    });

    it("when the page is the API's own origin, or the client is no browser, then refresh and logout work", async () => {
      const { cookie } = await signedIn();
      const own = { origin: stack.url, 'sec-fetch-site': 'same-origin' };
      expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie, headers: own })).status).toBe(200);
      const fresh = await signedIn();
      expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: fresh.cookie })).status).toBe(200);
      expect((await call(stack.url, 'POST', '/api/auth/user/logout', { headers: own })).status).toBe(200);
    });

    it('when a browser page refreshes without the cookie, then the 401 says why; other clients get the plain answer', async () => {
      const fromPage = await call(stack.url, 'POST', '/api/auth/user/refresh', { headers: { origin: stack.url } });
      expect(fromPage.status).toBe(401);
      expect(fromPage.body).toMatchObject({ code: 'refresh_token_missing', message: 'Refresh token missing', errors: { refreshToken: expect.stringContaining("credentials: 'include'") } });
      const plain = await call(stack.url, 'POST', '/api/auth/user/refresh');
      expect(plain.body).toEqual({ success: false, message: 'Refresh token missing', code: 'refresh_token_missing' });
    });
  });
});
