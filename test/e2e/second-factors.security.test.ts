// Authenticator apps and recovery codes, end to end through the gateway, for users and admins: the
// codes come from a real TOTP generator (otpauth) at times the test chooses, checked against the
// service's own clock. The rules between proofs (each time step once, the skew, recovery codes of a
// removed factor or an old set, a wrong recovery code as an attempt) are checked in milliseconds by
// services/auth/test/domain/ and the adapter's own test (otpauth-totp.test.ts).
import { Secret, TOTP, URI } from 'otpauth';
import { call, cookieValue } from '@acct/test-harness/http-client';
import { buildAccount, registerAndLogin } from '@acct/test-harness/factories';
import { proofRunsOut, stepUpKeyOf } from '@acct/test-harness/isolation';
import { startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
beforeAll(async () => {
  // A mailbox recovery waits 3 s here, and is looked at every 200 ms, so one test sees it come due.
  stack = await startStack('factors', { auth: { ADMIN_REGISTRATION_OPEN: 'true', ACCOUNT_RECOVERY_DELAY_SECONDS: '3', ACCOUNT_RECOVERY_REMINDER_SECONDS: '2', ACCOUNT_RECOVERY_POLL_MS: '200' }, gateway: { TRUST_PROXY: 'loopback' } });
});
afterAll(() => stack.stop());

type Kind = 'user' | 'admin';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cookieName = (kind: Kind) => (kind === 'admin' ? 'adminRefreshToken' : 'userRefreshToken');

/** A code of the app at `offsetMs` from now. */
const codeAt = (secret: string, offsetMs = 0) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + offsetMs });

// No wait for a step's edge: the service accepts a code one step either side of its own, so a code
// that crosses an edge on its way is still accepted, and every code that must be new is made for
// the step after the one last used (`codeAt(secret, 30_000)`).

/** A signed-in account with a live authenticator app: its secret and its recovery codes. */
async function withAuthenticator(kind: Kind = 'user') {
  const signedIn = await registerAndLogin(stack, kind);
  const started = await call(stack.url, 'POST', `/api/auth/${kind}/factors/totp`, { headers: bearer(signedIn.accessToken) });
  expect(started.status).toBe(200);
  const secret = started.body.data.secret as string;
  const confirmed = await call(stack.url, 'POST', `/api/auth/${kind}/factors/totp/confirm`, { headers: bearer(signedIn.accessToken), body: { code: codeAt(secret) } });
  expect(confirmed.status).toBe(200);
  return { ...signedIn, secret, started, recoveryCodes: confirmed.body.data.recoveryCodes as string[] };
}

const login = (kind: Kind, account: { email: string; password: string }) => call(stack.url, 'POST', `/api/auth/${kind}/login`, { body: { email: account.email, password: account.password } });
const verify = (body: unknown) => call(stack.url, 'POST', '/api/auth/verify-otp', { body });

describe('adding an authenticator app', () => {
  it('answers a 160-bit SHA-1 secret, its otpauth URI and a QR image, and is live only after its first code', async () => {
    const signedIn = await registerAndLogin(stack, 'user');
    const started = await call(stack.url, 'POST', '/api/auth/user/factors/totp', { headers: bearer(signedIn.accessToken) });
    expect(started.status).toBe(200);
    expect(started.headers.get('cache-control')).toBe('no-store');
    const parsed = URI.parse(started.body.data.otpauthUrl) as TOTP;
    expect(parsed).toBeInstanceOf(TOTP);
    expect(parsed.secret.bytes).toHaveLength(20);
    expect([parsed.algorithm, parsed.digits, parsed.period, parsed.label]).toEqual(['SHA1', 6, 30, signedIn.account.email]);
    expect(parsed.secret.base32).toBe(started.body.data.secret);
    expect(started.body.data.qrCode).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);

    // Pending: a login still needs nothing but the password.
    const pending = await call(stack.url, 'GET', '/api/auth/user/factors', { headers: bearer(signedIn.accessToken) });
    expect(pending.body.data.factors.totp).toEqual({ enabled: false, pending: true, createdAt: null });
    expect((await login('user', signedIn.account)).body.data.accessToken).toBeDefined();

    const wrong = await call(stack.url, 'POST', '/api/auth/user/factors/totp/confirm', { headers: bearer(signedIn.accessToken), body: { code: codeAt(started.body.data.secret, 120_000) } });
    expect([wrong.status, wrong.body.code]).toEqual([401, 'invalid_otp']);
    const confirmed = await call(stack.url, 'POST', '/api/auth/user/factors/totp/confirm', { headers: bearer(signedIn.accessToken), body: { code: codeAt(started.body.data.secret) } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data.recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.body.data.recoveryCodes).size).toBe(10);
    const notice = await stack.events.waitFor('account.security.changed', (p) => p.accountId === signedIn.id && p.change === 'totp_added');
    expect(notice.payload).toMatchObject({ kind: 'user', email: signedIn.account.email });

    const listed = await call(stack.url, 'GET', '/api/auth/user/factors', { headers: bearer(signedIn.accessToken) });
    expect(listed.body.data.factors).toMatchObject({ totp: { enabled: true, pending: false }, recoveryCodes: { remaining: 10 } });
    expect(listed.text).not.toContain(started.body.data.secret);
  });

  it('refuses a second app while one is live, and a confirmation with nothing pending', async () => {
    const { accessToken } = await withAuthenticator();
    const again = await call(stack.url, 'POST', '/api/auth/user/factors/totp', { headers: bearer(accessToken) });
    expect([again.status, again.body.code]).toEqual([409, 'factor_exists']);
    const confirm = await call(stack.url, 'POST', '/api/auth/user/factors/totp/confirm', { headers: bearer(accessToken), body: { code: '123456' } });
    expect([confirm.status, confirm.body.code]).toEqual([404, 'factor_not_found']);
  });

  it.each([
    [{}, 'Please provide code'],
    [{ code: '12345' }, 'Code must be a 6 digit OTP'],
    [{ code: 123456 }, 'Code must be a 6 digit OTP'],
  ])('answers 400 to the confirmation %j', async (body, message) => {
    const signedIn = await registerAndLogin(stack, 'user');
    await call(stack.url, 'POST', '/api/auth/user/factors/totp', { headers: bearer(signedIn.accessToken) });
    const res = await call(stack.url, 'POST', '/api/auth/user/factors/totp/confirm', { headers: bearer(signedIn.accessToken), body });
    expect([res.status, res.body.code, res.body.message]).toEqual([400, 'validation_failed', message]);
  });
});

describe('signing in with an authenticator app', () => {
  it.each<Kind>(['user', 'admin'])('a %s with an app gets the second step, and its code gives the kind its own cookie', async (kind) => {
    const { account, id, secret } = await withAuthenticator(kind);
    const first = await login(kind, account);
    expect(first.body.message).toBe('OTP verification required');
    expect(first.body.data).toMatchObject({ requires_2fa: true, factors: ['totp', 'recovery_code'] });
    expect(first.setCookies).toEqual([]);

    // The confirmation used the current step; the next one is within the skew allowed, and once only.
    const code = codeAt(secret, 30_000);
    const res = await verify({ challenge_token: first.body.data.challenge_token, code });
    expect(res.status).toBe(200);
    const again = await login(kind, account);
    expect((await verify({ challenge_token: again.body.data.challenge_token, code })).body.code).toBe('invalid_otp');
    expect(res.body.data.user.id).toBe(id);
    expect(cookieValue(res.setCookies, cookieName(kind))).toBeDefined();
    expect(cookieValue(res.setCookies, cookieName(kind === 'admin' ? 'user' : 'admin'))).toBeUndefined();
    // The cookie is the kind's own: it refreshes on the kind's route.
    const refreshed = await call(stack.url, 'POST', `/api/auth/${kind}/refresh`, { cookie: `${cookieName(kind)}=${cookieValue(res.setCookies, cookieName(kind))}` });
    expect(refreshed.status).toBe(200);
    if (kind === 'user') await stack.events.waitFor('user.login.succeeded', (p) => p.userId === id);
  });
});

describe('recovery codes', () => {
  it('signs in once per code, in any letter case and without its dash, and tells the owner', async () => {
    const { account, id, recoveryCodes } = await withAuthenticator();
    const [code] = recoveryCodes;
    const first = await login('user', account);
    const used = await verify({ challenge_token: first.body.data.challenge_token, recovery_code: code.toUpperCase().replace('-', '') });
    expect(used.status).toBe(200);
    expect(cookieValue(used.setCookies, 'userRefreshToken')).toBeDefined();
    await stack.events.waitFor('account.security.changed', (p) => p.accountId === id && p.change === 'recovery_code_used');

    const second = await login('user', account);
    const replay = await verify({ challenge_token: second.body.data.challenge_token, recovery_code: code });
    expect([replay.status, replay.body.code]).toEqual([401, 'invalid_otp']);
    const factors = await call(stack.url, 'GET', '/api/auth/user/factors', { headers: bearer(used.body.data.accessToken) });
    expect(factors.body.data.factors.recoveryCodes.remaining).toBe(9);
  });

  it('one correct code sent 20 times at once opens exactly one session, and the copies count as no wrong guesses', async () => {
    const { account, recoveryCodes } = await withAuthenticator();
    const challenge = await login('user', account);
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify({ challenge_token: challenge.body.data.challenge_token, recovery_code: recoveryCodes[0] })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status !== 200).map((a) => a.status)).toEqual(Array(19).fill(401));
    // Nineteen wrong guesses would make the next one wait (and cut the next challenge's guesses): the copies were none.
    const next = await login('user', account);
    for (let i = 0; i < 4; i++) expect((await verify({ challenge_token: next.body.data.challenge_token, recovery_code: 'aaaaa-aaaaa' })).body.code).toBe('invalid_otp');
    expect((await verify({ challenge_token: next.body.data.challenge_token, recovery_code: recoveryCodes[1] })).status).toBe(200);
  });

  it('answers 400 to a malformed recovery code and keeps the contract’s words for a missing code', async () => {
    const { account } = await withAuthenticator();
    const challenge = await login('user', account);
    const malformed = await verify({ challenge_token: challenge.body.data.challenge_token, recovery_code: 'not a code' });
    expect([malformed.status, malformed.body.message]).toEqual([400, 'Recovery code must be 10 letters and digits as issued, such as abcde-23456']);
    const missing = await verify({ challenge_token: challenge.body.data.challenge_token });
    expect(missing.body.message).toBe('Please provide challenge_token and code');
  });
});

describe('changing factors', () => {
  /** Ends the session's recent proof, as the passing of STEP_UP_SECONDS would. */
  const forgetProof = async (accessToken: string) => {
    await proofRunsOut(stack, accessToken);
  };

  it('needs a recent proof: without one it answers 403 step_up_required, after the password or a code it goes on', async () => {
    const { accessToken, secret, account } = await withAuthenticator();
    await forgetProof(accessToken);
    const refused = await call(stack.url, 'DELETE', '/api/auth/user/factors/totp', { headers: bearer(accessToken) });
    expect([refused.status, refused.body.code]).toEqual([403, 'step_up_required']);

    const wrongPassword = await call(stack.url, 'POST', '/api/auth/user/reauthenticate', { headers: bearer(accessToken), body: { password: 'not-the-password' } });
    expect([wrongPassword.status, wrongPassword.body.code]).toEqual([401, 'invalid_credentials']);
    const byPassword = await call(stack.url, 'POST', '/api/auth/user/reauthenticate', { headers: bearer(accessToken), body: { password: account.password } });
    expect([byPassword.status, byPassword.body.data]).toEqual([200, { expiresIn: 300 }]);
    expect((await call(stack.url, 'POST', '/api/auth/user/factors/recovery-codes', { headers: bearer(accessToken) })).status).toBe(200);

    await forgetProof(accessToken);
    const byCode = await call(stack.url, 'POST', '/api/auth/user/reauthenticate', { headers: bearer(accessToken), body: { code: codeAt(secret, 30_000) } });
    expect(byCode.status).toBe(200);
    const missing = await call(stack.url, 'POST', '/api/auth/user/reauthenticate', { headers: bearer(accessToken), body: {} });
    expect([missing.status, missing.body.message]).toEqual([400, 'Please provide password or code']);
  });

  it('a code sent to reauthenticate spends the account’s one budget of wrong codes: from many addresses, a wait follows, at every route', async () => {
    const { accessToken, secret, account } = await withAuthenticator();
    const reauthenticate = (code: string, ip: string) => call(stack.url, 'POST', '/api/auth/user/reauthenticate', { headers: { ...bearer(accessToken), 'x-forwarded-for': ip }, body: { code } });
    // A login's second step, opened first: the wait that follows is a second long, and a login (bcrypt)
    // on a busy machine could outlast it.
    const challenge = await login('user', account);
    // Ten steps ahead: never a code the service accepts now.
    for (let i = 0; i < 5; i++) expect((await reauthenticate(codeAt(secret, 300_000 + i * 30_000), `198.51.100.${i + 1}`)).body.code).toBe('invalid_otp');
    const waited = await reauthenticate(codeAt(secret), '198.51.100.77');
    expect([waited.status, waited.body.code]).toEqual([429, 'rate_limited']);
    expect(Number(waited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The same budget at the second step of a login.
    expect((await verify({ challenge_token: challenge.body.data.challenge_token, code: codeAt(secret) })).status).toBe(429);
    // The owner with the right code (of a step not used yet) gets through after the wait.
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await reauthenticate(codeAt(secret, 30_000), '198.51.100.77')).status).toBe(200);
  });

  it('removing the app ends the other sessions, drops the recovery codes and tells the owner', async () => {
    const { account, id, accessToken, recoveryCodes } = await withAuthenticator();
    // A second session, by recovery code.
    const challenge = await login('user', account);
    const second = await verify({ challenge_token: challenge.body.data.challenge_token, recovery_code: recoveryCodes[0] });
    expect(second.status).toBe(200);

    // By its id in the list, any factor: recovery codes go only with the last factor, and an id the account does not hold is none.
    for (const id of ['recovery_code', 'no-such-factor']) {
      const refused = await call(stack.url, 'DELETE', `/api/auth/user/factors/${id}`, { headers: bearer(accessToken) });
      expect([refused.status, refused.body.code]).toEqual([404, 'factor_not_found']);
    }
    const removed = await call(stack.url, 'DELETE', '/api/auth/user/factors/totp', { headers: bearer(accessToken) });
    expect([removed.status, removed.body.data]).toEqual([200, { signedOut: 1 }]);
    await stack.events.waitFor('account.security.changed', (p) => p.accountId === id && p.change === 'totp_removed');
    const secondRefresh = await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${cookieValue(second.setCookies, 'userRefreshToken')}` });
    expect(secondRefresh.status).toBe(401);
    const factors = await call(stack.url, 'GET', '/api/auth/user/factors', { headers: bearer(accessToken) });
    expect(factors.body.data.factors).toMatchObject({ totp: { enabled: false }, recoveryCodes: { remaining: 0 } });
    // The password alone signs in again.
    expect((await login('user', account)).body.message).toBe('Login successful');
  });

  it("an admin sees whether a user has factors, never their secrets, and resets them: the user's sessions end", async () => {
    const user = await withAuthenticator();
    const admin = await registerAndLogin(stack, 'admin');
    const seen = await call(stack.url, 'GET', `/api/admin/users/${user.id}/factors`, { headers: bearer(admin.accessToken) });
    expect(seen.body.data.factors).toEqual({
      items: [
        { method: 'totp', label: 'Authenticator app', createdAt: expect.any(String), lastUsedAt: expect.any(String), confirmed: true, role: 'way-in' },
        { method: 'recovery_code', label: 'Recovery codes', createdAt: expect.any(String), lastUsedAt: null, confirmed: true, role: 'backup', remaining: 10 },
      ],
      totp: true,
      passkeys: 0,
      passkeyList: [],
      recoveryCodesLeft: 10,
    });
    expect(seen.text).not.toContain(user.secret);
    const byUser = await call(stack.url, 'GET', `/api/admin/users/${user.id}/factors`, { headers: bearer(user.accessToken) });
    expect(byUser.status).toBe(403);

    const reset = await call(stack.url, 'DELETE', `/api/admin/users/${user.id}/factors`, { headers: bearer(admin.accessToken) });
    expect([reset.status, reset.body.data]).toEqual([200, { removed: 1 }]);
    await stack.events.waitFor('account.security.changed', (p) => p.accountId === user.id && p.change === 'factors_reset');
    expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${user.refresh}` })).status).toBe(401);
    expect((await login('user', user.account)).body.message).toBe('Login successful');
    const unknown = await call(stack.url, 'DELETE', '/api/admin/users/6740c0ffee0000000000ffff/factors', { headers: bearer(admin.accessToken) });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'user_not_found']);
  });

  it('a second step opened before an admin resets the factors does not complete after it, with the old app or codes', async () => {
    const user = await withAuthenticator();
    const admin = await registerAndLogin(stack, 'admin');
    const challenge = await login('user', user.account);
    expect(challenge.body.data.requires_2fa).toBe(true);
    expect((await call(stack.url, 'DELETE', `/api/admin/users/${user.id}/factors`, { headers: bearer(admin.accessToken) })).status).toBe(200);
    const late = await verify({ challenge_token: challenge.body.data.challenge_token, code: codeAt(user.secret, 30_000) });
    expect(late.status).toBe(401);
    expect(late.setCookies).toEqual([]);
  });

  it('a recent proof lives STEP_UP_SECONDS from the login, no longer', async () => {
    const { accessToken } = await registerAndLogin(stack);
    const ttl = await stack.redis.pttl(stepUpKeyOf(stack, accessToken));
    expect(ttl).toBeGreaterThan(295_000);
    expect(ttl).toBeLessThanOrEqual(300_000);
  });

  it('no factor secret, code or challenge reaches a log record', async () => {
    const { secret, recoveryCodes, account } = await withAuthenticator();
    const challenge = await login('user', account);
    await verify({ challenge_token: challenge.body.data.challenge_token, recovery_code: recoveryCodes[2] });
    const logged = JSON.stringify([stack.logs.request, stack.logs.audit, stack.logs.service]);
    for (const secretValue of [secret, ...recoveryCodes, recoveryCodes[2].replace('-', ''), challenge.body.data.challenge_token]) expect(logged).not.toContain(secretValue);
  });
});

describe('getting back in without the authenticator app (the rules: services/auth/test/domain/mailbox.test.ts)', () => {
  /** From a second step the person cannot answer: the link mailed to the account's address. */
  async function askForRecovery(kind: Kind, account: { email: string; password: string }, id: string) {
    const second = await login(kind, account);
    const requestId = `recover-${id}-${Date.now()}`;
    const asked = await call(stack.url, 'POST', '/api/auth/verify-otp/recovery', { body: { challenge_token: second.body.data.challenge_token }, headers: { 'x-request-id': requestId } });
    expect([asked.status, asked.headers.get('cache-control')]).toEqual([200, 'no-store']);
    const mailed = await stack.events.waitFor('account.factor_recovery.requested', (p) => p.accountId === id && p.requestId === requestId);
    return new URL(mailed.payload.linkUrl).searchParams.get('token') as string;
  }

  it.each(['user', 'admin'] as const)('for a %s: the mailbox confirms, the address is told and reminded, the app goes only when due, and then the password alone signs in', async (kind) => {
    const { id, account } = await withAuthenticator(kind);
    const token = await askForRecovery(kind, account, id);
    const confirmed = await call(stack.url, 'POST', '/api/auth/factor-recovery/confirm', { body: { token } });
    expect(confirmed.status).toBe(200);
    expect(Date.parse(confirmed.body.data.recovery.dueAt) - Date.parse(confirmed.body.data.recovery.requestedAt)).toBe(3_000);
    await stack.events.waitFor('account.security.changed', (p) => p.accountId === id && p.change === 'factor_recovery_scheduled');
    // Not yet: the app still asks.
    expect((await login(kind, account)).body.data.requires_2fa).toBe(true);
    await stack.events.waitFor('account.security.changed', (p) => p.accountId === id && p.change === 'factor_recovery_reminder', 5_000);
    await stack.events.waitFor('account.security.changed', (p) => p.accountId === id && p.change === 'factor_recovery_completed', 5_000);
    const after = await login(kind, account);
    expect(after.body.data.accessToken).toBeDefined();
    expect(after.body.data.requires_2fa).toBeUndefined();
    const factors = await call(stack.url, 'GET', `/api/auth/${kind}/factors`, { headers: bearer(after.body.data.accessToken) });
    expect(factors.body.data).toMatchObject({ factors: { totp: { enabled: false } }, recovery: null });
  });

  it('a sign-in with the app cancels it, as the owner’s console does, and the factors list shows what is pending', async () => {
    const { id, account, secret, accessToken } = await withAuthenticator('user');
    const confirm = async () => call(stack.url, 'POST', '/api/auth/factor-recovery/confirm', { body: { token: await askForRecovery('user', account, id) } });
    expect((await confirm()).status).toBe(200);
    const listed = await call(stack.url, 'GET', '/api/auth/user/factors', { headers: bearer(accessToken) });
    expect(listed.body.data.recovery).toEqual({ requestedAt: expect.any(String), dueAt: expect.any(String) });
    const cancelled = await call(stack.url, 'DELETE', '/api/auth/user/factor-recovery', { headers: bearer(accessToken) });
    expect([cancelled.status, cancelled.body.data]).toEqual([200, { cancelled: true }]);
    expect((await call(stack.url, 'GET', '/api/auth/user/factors', { headers: bearer(accessToken) })).body.data.recovery).toBeNull();

    await stack.events.waitFor('account.security.changed', (p) => p.accountId === id && p.change === 'factor_recovery_cancelled');
    expect((await confirm()).status).toBe(200);
    const second = await login('user', account);
    expect((await verify({ challenge_token: second.body.data.challenge_token, code: codeAt(secret, 30_000) })).status).toBe(200);
    const cancelledBySignIn = await stack.events.waitFor('account.security.changed', (p) => p.accountId === id && p.change === 'factor_recovery_cancelled' && p.details?.[0] === 'Cancelled by a sign-in with a second factor.');
    expect(cancelledBySignIn).toBeDefined();
    expect((await call(stack.url, 'GET', '/api/auth/user/factors', { headers: bearer(accessToken) })).body.data.recovery).toBeNull();
  });

  it('refuses a made-up challenge and a used link', async () => {
    expect((await call(stack.url, 'POST', '/api/auth/verify-otp/recovery', { body: { challenge_token: 'made.up' } })).status).toBe(401);
    expect((await call(stack.url, 'POST', '/api/auth/factor-recovery/confirm', { body: { token: 'A'.repeat(43) } })).body.code).toBe('link_invalid');
  });
});

describe('without a factor of its own', () => {
  it('a user login answers exactly as before', async () => {
    const account = buildAccount();
    await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    const res = await login('user', account);
    expect(Object.keys(res.body.data).sort()).toEqual(['accessToken', 'expiresIn', 'user']);
  });
});
