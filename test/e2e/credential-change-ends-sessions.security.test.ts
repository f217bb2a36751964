// A change of credentials ends everything opened with the old ones, also a login that raced it:
// a password reset, an admin's disable and an admin's password set each leave no session that a
// login with the old password opened around them, and a pending admin code challenge ends too.
import { randomBytes } from 'node:crypto';
import { call, cookieValue, type Answer } from '@acct/test-harness/http-client';
import { buildAccount, registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
let admin: Awaited<ReturnType<typeof registerAndLogin>>;
beforeAll(async () => {
  // A real bcrypt cost, so a login spends a few milliseconds between its password check and its session.
  stack = await startStack('credchange', { auth: { BCRYPT_COST: '8', ADMIN_REGISTRATION_OPEN: 'true' } });
  admin = await registerAndLogin(stack, 'admin');
});
afterAll(() => stack.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function linkFor(email: string): Promise<string> {
  const requestId = `race-${randomBytes(6).toString('hex')}`;
  await call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email }, headers: { 'x-request-id': requestId } });
  const event = await stack.events.waitFor('account.password_reset.requested', (p) => p.requestId === requestId);
  return new URL(event.payload.resetUrl).searchParams.get('token') as string;
}

/**
 * Logins with the old password, sent every 4 ms from 12 ms before `change` starts: some finish
 * before it, some check the password before it and open their session after it, some come after.
 */
async function raceLogins(email: string, password: string, change: () => Promise<Answer>): Promise<{ change: Answer; logins: Answer[] }> {
  const logins = Array.from({ length: 8 }, (_, i) => sleep(i * 4).then(() => call(stack.url, 'POST', '/api/auth/user/login', { body: { email, password } })));
  const [changed, ...answered] = await Promise.all([sleep(12).then(change), ...logins]);
  return { change: changed, logins: answered };
}

/** Every session the logins opened: none may refresh, and none of their access tokens may read the profile. */
async function survivors(logins: Answer[]): Promise<string[]> {
  const alive: string[] = [];
  for (const login of logins.filter((l) => l.status === 200)) {
    expect(cookieValue(login.setCookies, 'userRefreshToken')).toBeTruthy();
    const refresh = await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${cookieValue(login.setCookies, 'userRefreshToken')}` });
    const me = await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${login.body.data.accessToken}` } });
    if (refresh.status !== 401 || me.status !== 401) alive.push(`refresh ${refresh.status}, /me ${me.status}`);
  }
  return alive;
}

describe('a login that races a change of credentials', () => {
  it('when a reset lands while logins with the old password are under way, then no session of theirs survives (10 trials)', async () => {
    let raced = 0;
    for (let trial = 0; trial < 10; trial++) {
      const account = buildAccount();
      expect((await call(stack.url, 'POST', '/api/auth/user/register', { body: account })).status).toBe(201);
      const token = await linkFor(account.email);
      const { change, logins } = await raceLogins(account.email, account.password, () =>
        call(stack.url, 'POST', '/api/auth/user/reset-password', { body: { token, newPassword: 'a brand new secret' } }),
      );
      expect(change.status).toBe(200);
      raced += logins.filter((l) => l.status === 200).length;
      expect(await survivors(logins)).toEqual([]);
    }
    // The race was run: some logins got in before the reset finished.
    expect(raced).toBeGreaterThan(0);
  });

  // Evidence that logins overlapped the change: a 200 (then revoked), or for a disable a 401 too
  // (its password was checked before the disable, its session refused after it); a login that
  // came after a disable answers 403.
  it.each([
    ['disables the account', { disabled: true }, [200, 401]],
    ['sets a new password', { password: 'set by an admin' }, [200]],
  ])('when an admin %s while logins with the old password are under way, then no session of theirs survives (10 trials)', async (_label, change, overlapping) => {
    let raced = 0;
    for (let trial = 0; trial < 10; trial++) {
      const account = buildAccount();
      const registered = await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
      const { logins } = await raceLogins(account.email, account.password, () =>
        call(stack.url, 'PUT', `/api/admin/users/${registered.body.data.user.id}`, { body: change, headers: { authorization: `Bearer ${admin.accessToken}` } }),
      );
      raced += logins.filter((l) => overlapping.includes(l.status)).length;
      expect(await survivors(logins)).toEqual([]);
    }
    expect(raced).toBeGreaterThan(0);
  });
});

describe('an admin code challenge opened with the old password', () => {
  let twoFactor: TestStack;
  beforeAll(async () => {
    twoFactor = await startStack('credchotp', { auth: { ADMIN_2FA_DEFAULT: 'true', ADMIN_REGISTRATION_OPEN: 'true' } });
  });
  afterAll(() => twoFactor.stop());

  it('when the admin resets the password, then the right code no longer completes the challenge', async () => {
    const account = buildAccount();
    const registered = await call(twoFactor.url, 'POST', '/api/auth/admin/register', { body: account });
    const adminId = registered.body.data.admin.id as string;
    const login = await call(twoFactor.url, 'POST', '/api/auth/admin/login', { body: { email: account.email, password: account.password } });
    expect(login.body.data.requires_2fa).toBe(true);
    const code = (await twoFactor.events.waitFor('admin.otp.requested', (p) => p.adminId === adminId)).payload.code as string;

    const requestId = `otp-race-${randomBytes(6).toString('hex')}`;
    await call(twoFactor.url, 'POST', '/api/auth/admin/forgot-password', { body: { email: account.email }, headers: { 'x-request-id': requestId } });
    const event = await twoFactor.events.waitFor('account.password_reset.requested', (p) => p.requestId === requestId);
    const token = new URL(event.payload.resetUrl).searchParams.get('token') as string;
    expect((await call(twoFactor.url, 'POST', '/api/auth/admin/reset-password', { body: { token, newPassword: 'a brand new secret' } })).status).toBe(200);

    const verified = await call(twoFactor.url, 'POST', '/api/auth/verify-otp', { body: { challenge_token: login.body.data.challenge_token, code } });
    expect(verified.status).toBe(401);
  });
});
