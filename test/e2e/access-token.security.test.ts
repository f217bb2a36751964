// Access tokens that must not pass: wrong audience, wrong issuer, expired, or without an expiry,
// each refused by the gateway's actor resolution, by desktop sync and by the admin routes; and an
// admin token whose session has ended carries no admin power.
import jwt from 'jsonwebtoken';
import { withLowS } from '@acct/shared';
import { call } from '@acct/test-harness/http-client';
import { buildAccount, registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
let admin: Awaited<ReturnType<typeof registerAndLogin>>;
let user: Awaited<ReturnType<typeof registerAndLogin>>;
beforeAll(async () => {
  stack = await startStack('accesstoken');
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
    await new Promise((r) => setTimeout(r, 20));
    const record = stack.logs.request.find((r) => r.request_id === requestId);
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
  });

  it.each(FLAWS)('with %s does not let anyone register an admin', async (_label, flaw) => {
    const res = await call(stack.url, 'POST', '/api/auth/admin/register', { body: buildAccount(), headers: { authorization: `Bearer ${forged(admin.accessToken, flaw)}` } });
    expect(res.status).toBe(403);
  });
});

describe('an admin token whose session has ended', () => {
  it('after logout, can neither update a user, read an avatar nor register an admin', async () => {
    const session = await registerAndLogin(stack, 'admin', { authorization: `Bearer ${admin.accessToken}` });
    const headers = { authorization: `Bearer ${session.accessToken}` };
    expect((await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { body: { name: 'Before' }, headers })).status).toBe(200);
    const out = await call(stack.url, 'POST', '/api/auth/admin/logout', { cookie: `adminRefreshToken=${session.refresh}` });
    expect(out.status).toBe(200);
    const update = await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { body: { password: 'taken over 123' }, headers });
    expect(update.status).toBe(401);
    expect(update.body).toMatchObject({ success: false, code: 'session_revoked' });
    expect((await call(stack.url, 'GET', `/api/admin/users/${user.id}/avatar`, { headers })).status).toBe(401);
    expect((await call(stack.url, 'POST', '/api/auth/admin/register', { body: buildAccount(), headers })).status).toBe(403);
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
    await new Promise((r) => setTimeout(r, 20));
    expect(stack.logs.request.find((r) => r.request_id === requestId)).toMatchObject({ actor_type: 'admin', actor_id: admin.id });
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
