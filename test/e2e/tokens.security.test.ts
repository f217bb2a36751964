// Access tokens and the keys that verify them: tokens that must not pass, the published key set, and the
// verifier library other back ends use, against the revocation feed.

import jwt from 'jsonwebtoken';
import fs from 'node:fs';
import path from 'node:path';
import { withLowS, createLogger } from '@acct/shared';
import { call, cookieValue } from '@acct/test-harness/http-client';
import { registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';
import { sharedStack, type SharedStack } from '@acct/test-stack/shared';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { spawn, type ChildProcess } from 'node:child_process';
import { buildWorkspaces, repositoryRoot } from '@acct/test-harness/build';
import { until } from '@acct/test-harness/until';
import { stopChild } from '@acct/test-harness/processes';
import { openRevocationFeed } from '@acct/shared/redis';
import { testUrls } from '@acct/test-harness/isolation';
import { AccessTokenVerifier } from '@acct/verifier';

// Access tokens that must not pass: wrong audience, wrong issuer, expired, or without an expiry,
// each refused by the gateway's actor resolution, by desktop sync and by the admin routes; and an
// admin token whose session has ended carries no admin power.
describe('access-token.security', () => {
  let stack: SharedStack;
  let admin: Awaited<ReturnType<typeof registerAndLogin>>;
  let user: Awaited<ReturnType<typeof registerAndLogin>>;
  beforeAll(async () => {
    stack = await sharedStack();
    admin = await registerAndLogin(stack, 'admin');
    user = await registerAndLogin(stack);
  });
  afterAll(() => stack.stop());

  type Claims = { sub: string; kind: string; role: string; sid: string };
  const claimsOf = (token: string) => jwt.decode(token) as Claims & { exp: number };

  /** A token signed with the real key, from the claims of a real one, with one thing wrong. */
  function forged(token: string, flaw: Flaw | 'none'): string {
    const { sub, kind, role, sid } = claimsOf(token);
    const options: jwt.SignOptions = { algorithm: 'ES256', subject: sub, issuer: 'account-service', audience: 'account-api', expiresIn: 600 };
    if (flaw === 'audience') options.audience = 'another-api';
    if (flaw === 'issuer') options.issuer = 'someone-else';
    if (flaw === 'expired') options.expiresIn = -10;
    if (flaw === 'no-exp') delete options.expiresIn;
    // Low-S, as auth signs: the flaw under test is the only one.
    return withLowS(jwt.sign({ kind, role, sid }, stack.keys.privateKey, options));
  }

  type Flaw = 'audience' | 'issuer' | 'expired' | 'no-exp';
  const FLAWS: Array<[string, Flaw]> = [
    ['the wrong audience', 'audience'],
    ['the wrong issuer', 'issuer'],
    ['an expiry in the past', 'expired'],
    ['no expiry at all', 'no-exp'],
  ];

  describe('a flawed access token', () => {
    it('is accepted when nothing is wrong with it (the control for the cases below)', async () => {
      const token = forged(admin.accessToken, 'none');
      const res = await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { body: { name: 'Renamed' }, headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
    });

    it.each(FLAWS)('with %s leaves the request anonymous in the gateway log', async (_label, flaw) => {
      const requestId = `flawed-${flaw}`;
      await call(stack.url, 'GET', '/api/desktop/latest-version?platform=linux', { headers: { authorization: `Bearer ${forged(admin.accessToken, flaw)}`, 'x-request-id': requestId } });
      const record = await until(() => stack.logs.request.find((r) => r.request_id === requestId), 5_000, 'the request\'s log record');
      expect(record).toMatchObject({ actor_type: 'anonymous' });
      expect(record).not.toHaveProperty('actor_id');
    });

    it.each(FLAWS)('with %s is refused 401 by desktop sync', async (_label, flaw) => {
      const res = await call(stack.url, 'POST', '/api/desktop/sync', {
        body: { device: { id: 'd1', platform: 'linux', appVersion: '1.0.0' }, cursor: '0', changes: [] },
        headers: { authorization: `Bearer ${forged(user.accessToken, flaw)}` },
      });
      expect(res.status).toBe(401);
    });

    it.each(FLAWS)('with %s is refused 401 by the admin user routes', async (_label, flaw) => {
      const headers = { authorization: `Bearer ${forged(admin.accessToken, flaw)}` };
      expect((await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { body: { name: 'Hacked' }, headers })).status).toBe(401);
      expect((await call(stack.url, 'GET', `/api/admin/users/${user.id}/avatar`, { headers })).status).toBe(401);
      expect((await call(stack.url, 'GET', '/api/admin/users', { headers })).status).toBe(401);
    });
  });

  describe('an admin token whose session has ended', () => {
    it('after logout, can neither update a user, read an avatar nor list the users', async () => {
      const session = await registerAndLogin(stack, 'admin', { authorization: `Bearer ${admin.accessToken}` });
      const headers = { authorization: `Bearer ${session.accessToken}` };
      expect((await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { body: { name: 'Before' }, headers })).status).toBe(200);
      const out = await call(stack.url, 'POST', '/api/auth/admin/logout', { cookie: `adminRefreshToken=${session.refresh}` });
      expect(out.status).toBe(200);
      const update = await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { body: { password: 'taken over 123' }, headers });
      expect(update.status).toBe(401);
      expect(update.body).toMatchObject({ success: false, code: 'session_revoked' });
      expect((await call(stack.url, 'GET', `/api/admin/users/${user.id}/avatar`, { headers })).status).toBe(401);
      expect((await call(stack.url, 'GET', '/api/admin/users', { headers })).status).toBe(401);
      // The user's password was not changed by the refused update.
      expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } })).status).toBe(200);
    });

    it('after a password reset of the admin, loses admin powers at once', async () => {
      const session = await registerAndLogin(stack, 'admin', { authorization: `Bearer ${admin.accessToken}` });
      await call(stack.url, 'POST', '/api/auth/admin/forgot-password', { body: { email: session.account.email } });
      const event = await stack.events.waitFor('account.password_reset.requested', (p) => p.accountId === session.id);
      const token = new URL(event.payload.resetUrl).searchParams.get('token');
      expect((await call(stack.url, 'POST', '/api/auth/admin/reset-password', { body: { token, newPassword: 'fresh admin secret' } })).status).toBe(200);
      const res = await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { body: { name: 'After reset' }, headers: { authorization: `Bearer ${session.accessToken}` } });
      expect(res.status).toBe(401);
    });
  });

  describe('the bearer scheme', () => {
    it.each(['bearer', 'BEARER', 'BeArEr'])('is read in any letter case (%s): gateway actor, admin routes and desktop sync', async (scheme) => {
      const requestId = `scheme-${scheme}`;
      const adminHeaders = { authorization: `${scheme} ${admin.accessToken}`, 'x-request-id': requestId };
      expect((await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { body: { name: 'Cased' }, headers: adminHeaders })).status).toBe(200);
      expect(await until(() => stack.logs.request.find((r) => r.request_id === requestId), 5_000, 'the request\'s log record')).toMatchObject({ actor_type: 'admin', actor_id: admin.id });
      const sync = await call(stack.url, 'POST', '/api/desktop/sync', {
        body: { device: { id: 'd-case', platform: 'linux', appVersion: '1.0.0' }, cursor: '0', changes: [] },
        headers: { authorization: `${scheme} ${user.accessToken}` },
      });
      expect(sync.status).toBe(200);
    });

    it('is still required: a token with another scheme, or none, is anonymous', async () => {
      for (const authorization of [`Token ${admin.accessToken}`, admin.accessToken, `Bearer`]) {
        expect((await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { body: { name: 'Nope' }, headers: { authorization } })).status).toBe(401);
      }
    });
  });
});

// The key set other back ends verify access tokens with: GET /.well-known/jwks.json through the
// gateway, and a token from a login verified with it by `jose`, as another service would.
describe('key-set.response', () => {
  let stack: SharedStack;
  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(() => stack.stop());

  describe('GET /.well-known/jwks.json', () => {
    it('publishes the signing key with its kid, cacheable, and a login’s access token names it and verifies with it', async () => {
      const res = await call(stack.url, 'GET', '/.well-known/jwks.json');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/jwk-set+json');
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      const keys = res.body.keys as Array<Record<string, string>>;
      expect(keys).toEqual([{ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), alg: 'ES256', use: 'sig' }]);

      const { accessToken } = await registerAndLogin(stack);
      expect(decodeProtectedHeader(accessToken)).toEqual({ alg: 'ES256', typ: 'JWT', kid: keys[0].kid });
      const { payload } = await jwtVerify(accessToken, createLocalJWKSet(res.body), { issuer: 'account-service', audience: 'account-api', algorithms: ['ES256'] });
      expect(payload).toMatchObject({ kind: 'user', role: 'user', sid: expect.any(String) });
      // A token signed with another key names no key of the set.
      await expect(jwtVerify(accessToken.replace(/\.[^.]+$/, '.AAAA'), createLocalJWKSet(res.body))).rejects.toThrow();
    });

    it('answers HEAD alike, without a body, and no other method', async () => {
      const head = await call(stack.url, 'HEAD', '/.well-known/jwks.json');
      expect([head.status, head.text]).toEqual([200, '']);
      expect((await call(stack.url, 'POST', '/.well-known/jwks.json', { body: {} })).status).toBe(404);
    });
  });
});

// The README's other back end, as written, in a process of its own (libs/verifier, built): it
// accepts a live session's access token and refuses it within a second after the session ends, six
// ways (logout, signing one session out, signing out the others, a password change, an admin
// ending them, a refresh token presented again), with no call to the stack per request; a token it
// cannot trust (forged, of an unknown key) is refused, and without a feed credential it learns nothing.
// A verifier that follows the stack's Redis itself (a service that shares it) refuses as quickly.
describe('verifier', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const deps = require('../../scripts/lib/dependencies.js');

  const FEED_TOKEN = 'a'.repeat(16) + Math.random().toString(36).slice(2).padEnd(24, 'x');
  let stack: TestStack;
  let app: ChildProcess;
  let appUrl: string;
  let appLog = '';

  /** The README's code block, as a developer would paste it into a file of their own. */
  function readmeExample(): string {
    const readme = fs.readFileSync(path.join(repositoryRoot, 'README.md'), 'utf8');
    const block = /```js\n(\/\/ Another back end:[\s\S]*?)```/.exec(readme);
    if (!block) throw new Error('README.md has no "Another back end" code block');
    return block[1];
  }

  beforeAll(async () => {
    buildWorkspaces();
    // A refresh token's grace of one second: its reuse after that ends the session.
    stack = await startStack('verifier', { auth: { ADMIN_REGISTRATION_OPEN: 'true', REFRESH_GRACE_SECONDS: '1' }, gateway: { REVOCATION_FEED_TOKENS: FEED_TOKEN } });
    const port = await deps.freePort();
    appUrl = `http://127.0.0.1:${port}`;
    // Inside the repository, so that require finds express and @acct/verifier as any workspace would.
    const file = path.join(repositoryRoot, 'test', 'e2e', `.verifier-app-${process.pid}.cjs`);
    fs.writeFileSync(file, readmeExample());
    app = spawn(process.execPath, [file], { env: { ...process.env, ACCOUNT_API_URL: stack.url, REVOCATION_FEED_TOKEN: FEED_TOKEN, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    app.stdout!.on('data', (c) => (appLog += c));
    app.stderr!.on('data', (c) => (appLog += c));
    app.once('exit', () => fs.rmSync(file, { force: true }));
    await until(async () => (await fetch(`${appUrl}/orders`).catch(() => undefined))?.status === 401, 15_000, () => `the example app to listen (${appLog})`);
  }, 60_000);

  afterAll(async () => {
    await stopChild(app);
    await stack?.stop();
  });

  const orders = (token: string) => fetch(`${appUrl}/orders`, { headers: { authorization: `Bearer ${token}` } });
  async function refusedWithinASecond(token: string, way: string): Promise<void> {
    let last = '';
    const answer = await until(async () => {
      const res = await orders(token);
      last = `${res.status} ${await res.clone().text()}`;
      return res.status === 401 ? ((await res.json()) as { code: string }) : undefined;
    }, 1_000, () => `after ${way}, the ended session refused by the other back end (it answered ${last}; its output: ${appLog || 'none'})`);
    expect(answer.code).toBe('session_revoked');
  }

  it('accepts a live session, and refuses it within a second once it ended, each of six ways', async () => {
    const admin = await registerAndLogin(stack, 'admin');
    const ways: Array<[string, (user: Awaited<ReturnType<typeof registerAndLogin>>) => Promise<void>]> = [
      ['logout', async (u) => void (await call(stack.url, 'POST', '/api/auth/user/logout', { headers: { cookie: `userRefreshToken=${u.refresh}` } }))],
      [
        'signing that session out from another',
        async (u) => {
          const other = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: u.account.email, password: u.account.password } });
          const sessions = await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: { authorization: `Bearer ${other.body.data.accessToken}` } });
          const target = sessions.body.data.sessions.find((s: { current: boolean }) => !s.current).id;
          expect((await call(stack.url, 'DELETE', `/api/auth/user/sessions/${target}`, { headers: { authorization: `Bearer ${other.body.data.accessToken}` } })).status).toBe(200);
        },
      ],
      [
        'signing out the others',
        async (u) => {
          const other = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: u.account.email, password: u.account.password } });
          expect((await call(stack.url, 'POST', '/api/auth/user/sessions/sign-out-others', { headers: { authorization: `Bearer ${other.body.data.accessToken}` } })).status).toBe(200);
        },
      ],
      [
        'a password change in another session',
        async (u) => {
          const other = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: u.account.email, password: u.account.password } });
          const changed = await call(stack.url, 'POST', '/api/auth/user/password', { headers: { authorization: `Bearer ${other.body.data.accessToken}` }, body: { currentPassword: u.account.password, newPassword: 'a changed long passphrase' } });
          expect(changed.status).toBe(200);
        },
      ],
      ['an admin ending every session', async (u) => expect((await call(stack.url, 'DELETE', `/api/admin/users/${u.id}/sessions`, { headers: { authorization: `Bearer ${admin.accessToken}` } })).status).toBe(200)],
      [
        'a refresh token presented again',
        async (u) => {
          const rotated = await call(stack.url, 'POST', '/api/auth/user/refresh', { headers: { cookie: `userRefreshToken=${u.refresh}` } });
          const next = cookieValue(rotated.setCookies, 'userRefreshToken');
          expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { headers: { cookie: `userRefreshToken=${next}` } })).status).toBe(200);
          // The first token, two rotations and past its grace later: reuse, and the whole session ends.
          await new Promise((r) => setTimeout(r, 1_500));
          expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { headers: { cookie: `userRefreshToken=${u.refresh}` } })).status).toBe(401);
        },
      ],
    ];
    // No call to the stack per request: twenty checks add nothing to the gateway's request log.
    const someone = await registerAndLogin(stack);
    const logged = stack.logs.request.length;
    for (let i = 0; i < 20; i++) expect((await orders(someone.accessToken)).status).toBe(200);
    expect(stack.logs.request.length).toBe(logged);
    for (const [way, end] of ways) {
      const user = await registerAndLogin(stack);
      const live = await orders(user.accessToken);
      expect([way, live.status, await live.json()]).toEqual([way, 200, { user: user.id }]);
      await end(user);
      await refusedWithinASecond(user.accessToken, way);
    }
  }, 90_000);

  it('refuses tokens it cannot trust, and the feed to a client without its credential', async () => {
    const user = await registerAndLogin(stack);
    const [header, payload] = user.accessToken.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'someone-else' })).toString('base64url')}.${user.accessToken.split('.')[2]}`;
    for (const token of [forged, 'not.a.token', `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'x' })).toString('base64url')}.${payload}.`]) {
      const res = await orders(token);
      expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([401, 'unauthorized']);
    }
    expect((await fetch(`${appUrl}/orders`)).status).toBe(401);
    // The feed itself: only with a credential.
    expect((await fetch(`${stack.url}/api/revocations`)).status).toBe(401);
    expect((await fetch(`${stack.url}/api/revocations`, { headers: { authorization: 'Bearer not-the-token-at-all-but-long-enough' } })).status).toBe(401);
  });

  it('ends the open feed streams when a gateway stops, so that it stops cleanly instead of waiting on them', async () => {
    const replica = await stack.addReplicas({ gateway: { REVOCATION_FEED_TOKENS: FEED_TOKEN } });
    const res = await fetch(`${replica.url}/api/revocations`, { headers: { authorization: `Bearer ${FEED_TOKEN}` } });
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    const reading = (async () => {
      let text = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString();
      return text;
    })();
    // An open stream would hold the listener's close (and jest's timeout would end this test).
    expect(await replica.gateway.stop()).toBe(true);
    expect(await reading).toContain('event: heartbeat');
  });

  it('follows the stack’s Redis itself where a service shares it: an ended session refused within a second', async () => {
    const feed = await openRevocationFeed({ REDIS_URL: testUrls().redis, REVOCATION_STREAM: `${stack.names.redisPrefix}revocations`, REVOCATION_MAX_STALENESS_MS: 5_000 }, createLogger({ level: 'silent' }));
    const verifier = await new AccessTokenVerifier({ url: stack.url, revocations: feed }).start();
    try {
      const user = await registerAndLogin(stack);
      expect((await verifier.verify(user.accessToken)).ok).toBe(true);
      await call(stack.url, 'POST', '/api/auth/user/logout', { headers: { cookie: `userRefreshToken=${user.refresh}` } });
      await until(async () => (await verifier.verify(user.accessToken)).ok === false, 1_000, 'the ended session refused through Redis');
      expect(await verifier.verify(user.accessToken)).toEqual({ ok: false, reason: 'revoked' });
    } finally {
      await verifier.stop();
      await feed.close();
    }
  });
});
