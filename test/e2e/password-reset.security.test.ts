// Forgot-password and reset-password: links, limits and states.

import { randomBytes } from 'node:crypto';
import type Bcrypt from 'bcrypt';
import type { Mongoose } from 'mongoose';
import { call } from '@acct/test-harness/http-client';
import { testUrls } from '@acct/test-harness/isolation';
import { registerAndLogin, buildAccount, stackRequire, startStack, type TestStack } from '@acct/test-stack/stack';
import { until } from '@acct/test-harness/until';

// The stack's own bcrypt and mongoose, which its services call (not this file's copies).
const bcrypt = stackRequire<typeof Bcrypt>('bcrypt');
const mongoose = stackRequire<Mongoose>('mongoose');

// One stack for the file: behind a trusted proxy, so a test's X-Forwarded-For is a client of its
// own, with forgot-password's per-address budgets low enough for a test to spend (2 an hour from one
// client, 4 an hour from all); the other limits are the harness's roomy ones.
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('reset', { auth: { RATE_FORGOT_EMAIL_IP_PER_HOUR: '2', RATE_FORGOT_EMAIL_PER_HOUR: '4' }, gateway: { TRUST_PROXY: 'loopback' } });
});
afterAll(() => stack.stop());
// The spies below sit on the worker's own modules, which later files' stacks use too.
afterEach(() => jest.restoreAllMocks());

// Password reset under attack: one live link per account, resets that check the token before any
// bcrypt work and are rate-limited, forgot-password limits a stranger cannot spend for the owner,
// and no difference in work between a known and an unknown address until the answer.
describe('password-reset.security', () => {
  const tokenOf = (url: string) => new URL(url).searchParams.get('token') as string;
  let seq = 0;

  /** Asks for a link and answers its token, matched by the request id the event carries. */
  async function requestLink(stack: TestStack, email: string, ip = '127.0.0.1'): Promise<string> {
    const requestId = `link-${++seq}-${randomBytes(4).toString('hex')}`;
    const res = await call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email }, headers: { 'x-request-id': requestId, 'x-forwarded-for': ip } });
    expect(res.status).toBe(200);
    const event = await stack.events.waitFor('account.password_reset.requested', (p) => p.requestId === requestId);
    return tokenOf(event.payload.resetUrl);
  }

  const reset = (stack: TestStack, token: string, newPassword = 'a brand new secret', kind = 'user') =>
    call(stack.url, 'POST', `/api/auth/${kind}/reset-password`, { body: { token, newPassword } });

  describe('reset links', () => {
    afterEach(() => jest.restoreAllMocks());

    it('when a newer link is issued, then the older one no longer resets the password', async () => {
      const { account } = await registerAndLogin(stack);
      const older = await requestLink(stack, account.email);
      const newer = await requestLink(stack, account.email);
      expect((await reset(stack, older)).body.message).toBe('Invalid or expired reset token');
      expect((await reset(stack, newer)).status).toBe(200);
    });

    it('when a reset succeeds, then every other outstanding token of the account is used up', async () => {
      const { account, id } = await registerAndLogin(stack);
      const link = await requestLink(stack, account.email);
      // A second live token, as two forgot requests racing each other could leave.
      const stray = randomBytes(32).toString('base64url');
      const conn = await mongoose.createConnection(testUrls().mongo, { dbName: `${stack.names.mongoDb}_auth` }).asPromise();
      const { createHash } = await import('node:crypto');
      await conn.collection('password_resets').insertOne({
        tokenHash: createHash('sha256').update(stray).digest('base64url'),
        kind: 'user',
        accountId: id,
        expiresAt: new Date(Date.now() + 600_000),
        usedAt: null,
      });
      await conn.close();
      expect((await reset(stack, link)).status).toBe(200);
      const res = await reset(stack, stray, 'the attacker password');
      expect(res.status).toBe(400);
      expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'a brand new secret' } })).status).toBe(200);
    });

    it('when the token is bogus, then it is refused without a bcrypt hash', async () => {
      const hash = jest.spyOn(bcrypt, 'hash');
      const res = await reset(stack, randomBytes(32).toString('base64url'));
      expect(res.status).toBe(400);
      expect(hash).not.toHaveBeenCalled();
    });

    it('when the token is valid, then the new password is hashed once', async () => {
      const { account } = await registerAndLogin(stack);
      const token = await requestLink(stack, account.email);
      const hash = jest.spyOn(bcrypt, 'hash');
      expect((await reset(stack, token)).status).toBe(200);
      expect(hash).toHaveBeenCalledTimes(1);
    });
  });

  // The reset-password rate limit (429 with Retry-After past the per-address budget) is held by
  // services/auth/test/domain/email-links.test.ts on in-memory limits.

  describe('forgot-password limits', () => {

    const forgot = (email: string, ip: string, requestId?: string) =>
      call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email }, headers: { 'x-forwarded-for': ip, ...(requestId ? { 'x-request-id': requestId } : {}) } });

    it('when a stranger spends their budget for an address, then the owner on another address still gets a link', async () => {
      const { account } = await registerAndLogin(stack);
      expect((await forgot(account.email, '203.0.113.9')).status).toBe(200);
      expect((await forgot(account.email, '203.0.113.9')).status).toBe(200);
      expect((await forgot(account.email, '203.0.113.9')).status).toBe(429);
      const token = await requestLink(stack, account.email, '192.0.2.10');
      expect((await reset(stack, token)).status).toBe(200);
    });

    it('when the address mail budget is spent, then the answer stays the same and no more mail goes out', async () => {
      const { account, id } = await registerAndLogin(stack);
      for (const ip of ['198.51.100.1', '198.51.100.2']) {
        for (let i = 0; i < 2; i++) expect((await forgot(account.email, ip)).status).toBe(200);
      }
      const res = await forgot(account.email, '198.51.100.3', 'over-budget');
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('If that email is registered, a reset link has been sent.');
      // The queue's worker mails them one by one: the four within budget arrive, then no fifth does.
      const mailed = () => stack.events.received.filter((e) => e.routingKey === 'account.password_reset.requested' && e.payload.accountId === id);
      await until(() => mailed().length >= 4, 10_000, 'the four links within budget');
      await new Promise((r) => setTimeout(r, 500));
      expect(mailed()).toHaveLength(4);
      expect(stack.events.received.some((e) => e.payload.requestId === 'over-budget')).toBe(false);
    });

    it("when strangers spent the address's mail budget, then the owner asking from an address that signed in before still gets a link", async () => {
      // registerAndLogin signs in from the connection's own address, 127.0.0.1.
      const { account, id } = await registerAndLogin(stack);
      for (const ip of ['198.51.100.11', '198.51.100.12']) {
        for (let i = 0; i < 2; i++) expect((await forgot(account.email, ip)).status).toBe(200);
      }
      await forgot(account.email, '198.51.100.13', 'stranger-over-budget');
      const own = await forgot(account.email, '127.0.0.1', 'owner-over-budget');
      expect(own.status).toBe(200);
      const event = await stack.events.waitFor('account.password_reset.requested', (p) => p.requestId === 'owner-over-budget');
      expect(event.payload.accountId).toBe(id);
      expect(stack.events.received.some((e) => e.payload.requestId === 'stranger-over-budget')).toBe(false);
    });
  });

  // Forgot-password's work until the answer (the same for a known and an unknown address, nothing
  // looked up before it, both queued in one shape) is services/auth/test/domain/limits.test.ts's
  // "queues a known and an unknown address in the same shape"; the worker's schedule is the queue's.
});

describe('password-reset.state', () => {

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
      const email = buildAccount().email;
      const send = (value: string) => call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email: value } });
      expect((await send(email)).status).toBe(200);
      expect((await send(`  ${email.toUpperCase()}  `)).status).toBe(200);
      expect((await send(` ${email}`)).status).toBe(429);
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

    // Moved down (issue 66): a token past its lifetime is refused by services/auth/test/domain/
    // password-reset.test.ts ("refuses a token past its lifetime") over the store's expiry in
    // mongo-reset-tokens.state ("when the clock is past the expiry…"); no link for a disabled
    // account by the same domain file ("is mailed to no unknown address, no disabled account…").

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
});
