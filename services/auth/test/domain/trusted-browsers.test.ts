// "Trust this browser" on in-memory ports: a second step asked to trust the browser gives it a token,
// and a login with the password from that browser skips the second step; never another account's
// token, never after a change of credentials, never when the deployment trusts no browser, and
// never for a login that is not the password's. The owner lists and forgets them. The gateway's
// cookie and the pages are the browser test's (pages.browser).
import { AuthErrors } from '../../src/errors';
import { login, verifyOtp } from '../../src/domain/sign-in/login';
import { forgetTrustedBrowser, listTrustedBrowsers } from '../../src/domain/factors/trusted-browsers';
import { endEverySession } from '../../src/domain/shared/sessions';
import { appCode, memorySignIn, requestOf, claimsOf, APP, startApp } from '../fakes';


/** A user with an authenticator app, and a login from this browser that passed its second step (trusting it when asked). */
async function trustedOnce(asked: { trust_browser?: unknown } = { trust_browser: true }, trustedBrowserDays = 30) {
  const setUp = await memorySignIn();
  const { deps, make } = setUp;
  deps.policy.mfa = { ...deps.policy.mfa, trustedBrowserDays };
  const user = await make('user', 'grace@example.com');
  await startApp(deps.factors, 'user', user.id);
  await deps.factors.confirm('user', user.id, APP, 1);
  const first = await login(deps, 'user', { email: 'grace@example.com', password: 'right password' }, requestOf());
  if (first.kind !== 'otp_required') throw new Error('expected a second step');
  const done = await verifyOtp(deps, { flow: first.challengeToken, code: appCode(deps.totp.now), ...asked }, { ...requestOf(), userAgent: 'Firefox on Linux' });
  return { ...setUp, user, token: done.trustedBrowser };
}

const fromBrowser = (token: string | undefined) => ({ ...requestOf(), ...(token ? { trustedBrowser: token } : {}) });

describe('trusting a browser', () => {
  it('skips the second step after the password from the browser that was trusted, and records why', async () => {
    const { deps, token, user } = await trustedOnce();
    expect(token).toEqual(expect.any(String));
    const again = await login(deps, 'user', { email: 'grace@example.com', password: 'right password' }, fromBrowser(token));
    expect(again).toMatchObject({ kind: 'session', accessToken: `access-for-${user.id}` });
    expect(deps.activity.entries.filter((e) => e.type === 'signed_in').map((e) => e.details)).toEqual([
      ['second step: a code', 'browser trusted for 30 days'],
      ['method: password', 'second step: a trusted browser'],
    ]);
  });

  it('trusts nothing unless asked with `true`, nor where the deployment trusts no browser', async () => {
    expect((await trustedOnce()).token).toBeDefined();
    expect((await trustedOnce({ trust_browser: 'yes' })).token).toBeUndefined();
    expect((await trustedOnce({})).token).toBeUndefined();
    expect((await trustedOnce({ trust_browser: true }, 0)).token).toBeUndefined();
    const { deps, token } = await trustedOnce();
    deps.policy.mfa = { ...deps.policy.mfa, trustedBrowserDays: 0 };
    expect(await login(deps, 'user', { email: 'grace@example.com', password: 'right password' }, fromBrowser(token))).toMatchObject({ kind: 'otp_required' });
  });

  it('still asks a wrong password nothing more than it did, another browser and another account’s token for the second step', async () => {
    const { deps, token, make } = await trustedOnce();
    await expect(login(deps, 'user', { email: 'grace@example.com', password: 'wrong' }, fromBrowser(token))).rejects.toMatchObject(AuthErrors.invalidCredentials());
    expect(await login(deps, 'user', { email: 'grace@example.com', password: 'right password' }, fromBrowser(undefined))).toMatchObject({ kind: 'otp_required' });
    const other = await make('user', 'other@example.com');
    await startApp(deps.factors, 'user', other.id);
    await deps.factors.confirm('user', other.id, APP, 1);
    expect(await login(deps, 'user', { email: 'other@example.com', password: 'right password' }, fromBrowser(token))).toMatchObject({ kind: 'otp_required' });
  });

  it('ends with a change of credentials: a reset, a new password, an undo or a disable', async () => {
    const { deps, token, user } = await trustedOnce();
    await deps.accounts.user.update(user.id, { passwordHash: 'h:right password', endSessions: true });
    expect(await login(deps, 'user', { email: 'grace@example.com', password: 'right password' }, fromBrowser(token))).toMatchObject({ kind: 'otp_required' });
  });

  it('cancels no pending removal of the second factors: a trusted browser proves no factor now (the recovery model)', async () => {
    const { deps, token, user } = await trustedOnce();
    const now = new Date();
    await deps.recoveries.schedule({ kind: 'user', accountId: user.id, requestedAt: now, dueAt: new Date(now.getTime() + 3_600_000), remindAt: now });
    expect(await login(deps, 'user', { email: 'grace@example.com', password: 'right password' }, fromBrowser(token))).toMatchObject({ kind: 'session' });
    expect(await deps.recoveries.pendingFor('user', user.id)).toBeDefined();
  });

  it('is forgotten, not only outdated, whenever every session of the account ends (a reset of its factors, a new password, a disable)', async () => {
    const { deps, user } = await trustedOnce();
    expect(deps.trustedBrowsers.browsers.size).toBe(1);
    const account = await deps.accounts.user.update(user.id, { endSessions: true });
    if (!account) throw new Error('no account');
    await endEverySession(deps, 'user', account, requestOf());
    expect(deps.trustedBrowsers.browsers.size).toBe(0);
  });

  it('is listed for its owner with where it was trusted, and forgotten one by one; another account’s is not found', async () => {
    const { deps, token, user } = await trustedOnce();
    const caller = claimsOf('user', user);
    const listed = await listTrustedBrowsers(deps, caller);
    expect(listed).toEqual([expect.objectContaining({ id: token!.split('.')[0], ip: '192.0.2.1', userAgent: 'Firefox on Linux' })]);
    await expect(forgetTrustedBrowser(deps, claimsOf('user', { id: 'someone-else' }), listed[0].id, requestOf())).rejects.toMatchObject(AuthErrors.trustedBrowserNotFound());
    await forgetTrustedBrowser(deps, caller, listed[0].id, requestOf());
    expect(await listTrustedBrowsers(deps, caller)).toEqual([]);
    expect(await login(deps, 'user', { email: 'grace@example.com', password: 'right password' }, fromBrowser(token))).toMatchObject({ kind: 'otp_required' });
    expect(deps.activity.entries.map((e) => e.type)).toContain('browser_forgotten');
  });
});
