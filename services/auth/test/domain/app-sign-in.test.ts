// Signing in to an app through this service as an OpenID provider, on in-memory ports: the page's
// session approves (its kind, a live session, an enabled account, a fresh sign-in when the app asks
// one); the app's first token opens a session listed with its app, each later one renews it; the
// session's end (the owner, a change of credentials, a disable, a reuse) refuses the next token;
// the grant's end at the provider ends the session; and an app that asked is told of every end but
// its own (back-channel logout), once; another party's app is asked consent once, until the owner takes
// its access back. The protocol itself is the end-to-end tests'
// (openid-provider.response, openid-provider.browser).
import { AuthErrors } from '../../src/errors';
import { appTokenClaims, approveAppSignIn, endAppGrant, liveAppGrant, recordAppGrant } from '../../src/domain/apps/app-sign-in';
import { appsWithAccess, revokeAppAccess } from '../../src/domain/apps/apps-with-access';
import { endEverySession } from '../../src/domain/shared/sessions';
import { signOutOthers, signOutSession } from '../../src/domain/account/profile';
import { deleteOwnAccount } from '../../src/domain/account/deletion';
import type { App } from '../../src/domain/apps/ports';
import { MemoryAppGrants, MemorySessions, claimsOf, memorySignIn, requestOf } from '../fakes';

const DESKTOP: App = { id: 'desktop', name: 'Desktop', kind: 'user', firstParty: true };

async function setUp() {
  const base = await memorySignIn();
  const sessions = new MemorySessions();
  const deps = { ...base.deps, sessions, appGrants: new MemoryAppGrants(), revocations: { isRevoked: () => false as const } };
  const user = await base.make('user', 'grace@example.com');
  // The page's own session (a password sign-in a while ago), and its access token's claims.
  const page = await sessions.create({ kind: 'user', accountId: user.id, role: 'user', credentialEpoch: 0 });
  const claims = claimsOf('user', user, page.sessionId);
  return { deps, user, sessions, claims, page };
}

/** The page approved, the grant recorded: what the provider then asks for tokens. */
async function granted() {
  const s = await setUp();
  const approval = await approveAppSignIn(s.deps, s.claims, DESKTOP, { freshLogin: false }, { ...requestOf(), userAgent: 'Firefox on Linux' });
  await recordAppGrant(s.deps, 'grant-1', DESKTOP, approval, { ...requestOf(), userAgent: 'Firefox on Linux' }, 60_000);
  return { ...s, approval };
}

describe('approving an app sign-in', () => {
  it("approves with a live session of the app's kind, telling the app when that session signed in, and records it", async () => {
    const { deps, claims, user, sessions, page } = await setUp();
    const approval = await approveAppSignIn(deps, claims, DESKTOP, { freshLogin: false }, requestOf());
    expect(approval).toEqual({ accountId: user.id, authTime: Math.floor(sessions.live.get(page.sessionId)!.createdAt.getTime() / 1000) });
    expect(deps.activity.entries.map((e) => [e.type, e.details])).toEqual([['app_signed_in', ['Desktop']]]);
  });

  it('refuses no session, an ended one, the other kind and a disabled account', async () => {
    const { deps, claims, user, sessions, page } = await setUp();
    await expect(approveAppSignIn(deps, undefined, DESKTOP, { freshLogin: false }, requestOf())).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(approveAppSignIn(deps, { ...claims, kind: 'admin' }, DESKTOP, { freshLogin: false }, requestOf())).rejects.toEqual(AuthErrors.userOnly());
    await expect(approveAppSignIn(deps, claims, { ...DESKTOP, kind: 'admin' }, { freshLogin: false }, requestOf())).rejects.toEqual(AuthErrors.adminOnly());
    await deps.accounts.user.update(user.id, { disabled: true });
    await expect(approveAppSignIn(deps, claims, DESKTOP, { freshLogin: false }, requestOf())).rejects.toEqual(AuthErrors.accountDisabled());
    await sessions.revokeSession('user', user.id, page.sessionId);
    await expect(approveAppSignIn(deps, claims, DESKTOP, { freshLogin: false }, requestOf())).rejects.toMatchObject({ code: 'session_revoked' });
    expect(deps.activity.entries).toEqual([]);
  });

  it("records what the person allowed an app of another party", async () => {
    const { deps, claims } = await setUp();
    await approveAppSignIn(deps, claims, { ...DESKTOP, firstParty: false }, { freshLogin: false, consent: { asked: ['openid', 'email'], given: true, askAgain: false } }, requestOf());
    expect(deps.activity.entries.map((e) => [e.type, e.details])).toEqual([['app_signed_in', ['Desktop', 'allowed: openid email']]]);
  });

  it("asks an app of another party's consent once: a later sign-in that asks no more goes through, one that asks more or asks again does not", async () => {
    const { deps, claims, user } = await setUp();
    const partner: App = { id: 'partner', name: 'Partner', kind: 'user', firstParty: false };
    const ask = (asked: string[], given = false, askAgain = false) => approveAppSignIn(deps, claims, partner, { freshLogin: false, consent: { asked, given, askAgain } }, requestOf());
    await expect(ask(['openid', 'email'])).rejects.toEqual(AuthErrors.consentRequired());
    await ask(['openid', 'email'], true);
    await expect(ask(['openid', 'email'])).resolves.toMatchObject({ accountId: user.id });
    await expect(ask(['openid'])).resolves.toMatchObject({ accountId: user.id });
    // More than was allowed, or the app asking for the question: asked again.
    await expect(ask(['openid', 'email', 'profile'])).rejects.toEqual(AuthErrors.consentRequired());
    await expect(ask(['openid'], false, true)).rejects.toEqual(AuthErrors.consentRequired());
    // Allowing more adds to what was allowed.
    await ask(['openid', 'profile'], true);
    await expect(ask(['openid', 'email', 'profile'])).resolves.toMatchObject({ accountId: user.id });
    // No consent given at all (an entry point that said nothing): asked.
    await expect(approveAppSignIn(deps, claims, partner, { freshLogin: false }, requestOf())).rejects.toEqual(AuthErrors.consentRequired());
    // The product's own apps are never asked.
    await expect(approveAppSignIn(deps, claims, DESKTOP, { freshLogin: false, consent: { asked: ['openid'], given: false, askAgain: true } }, requestOf())).resolves.toMatchObject({ accountId: user.id });
    // Taken back: asked again.
    await deps.appConsents.forget('user', user.id, 'partner');
    await expect(ask(['openid'])).rejects.toEqual(AuthErrors.consentRequired());
  });

  it('asks for a fresh sign-in when the app does, and takes one of the last few minutes', async () => {
    const { deps, claims } = await setUp();
    await expect(approveAppSignIn(deps, claims, DESKTOP, { freshLogin: true }, requestOf())).rejects.toEqual(AuthErrors.stepUpRequired());
    await deps.ceremonies.markProof(claims.sid, 0);
    const approval = await approveAppSignIn(deps, claims, DESKTOP, { freshLogin: true }, requestOf());
    expect(Math.abs(approval.authTime - Date.now() / 1000)).toBeLessThan(2);
  });

  it('takes no proof made before a change of credentials as fresh', async () => {
    const { deps, claims, user } = await setUp();
    await deps.ceremonies.markProof(claims.sid, 0);
    await deps.accounts.user.update(user.id, { endSessions: true });
    await expect(approveAppSignIn(deps, claims, DESKTOP, { freshLogin: true }, requestOf())).rejects.toEqual(AuthErrors.stepUpRequired());
  });
});

describe("an app's tokens and its session", () => {
  it('gives no first token to an account disabled since the sign-in, nor to one deleted', async () => {
    for (const end of ['disable', 'delete'] as const) {
      const { deps, user } = await granted();
      if (end === 'disable') await deps.accounts.user.update(user.id, { disabled: true });
      else await deps.accounts.user.remove(user.id);
      expect([end, await appTokenClaims(deps, 'grant-1')]).toEqual([end, undefined]);
    }
  });

  it('opens a session of its own at the first token, listed with its app and where it was approved from, and renews it at each later one', async () => {
    const { deps, user, sessions } = await granted();
    const first = await appTokenClaims(deps, 'grant-1');
    expect(first).toMatchObject({ kind: 'user', role: 'user', sid: expect.any(String) });
    const listed = (await sessions.list('user', user.id)).find((s) => s.id === first!.sid);
    expect(listed?.app).toEqual({ id: 'desktop', name: 'Desktop' });
    expect(sessions.live.get(first!.sid)?.owner.userAgent).toBe('Firefox on Linux');
    const second = await appTokenClaims(deps, 'grant-1');
    expect(second?.sid).toBe(first?.sid);
    expect((await deps.appGrants.find('grant-1'))?.sessionToken).toBe(sessions.live.get(first!.sid)?.token);
  });

  it('gives no token once the session ended: by its owner, a change of credentials, a disable, or a grant forgotten', async () => {
    for (const end of ['owner', 'credentials', 'disable', 'forgotten'] as const) {
      const { deps, user, sessions } = await granted();
      const first = await appTokenClaims(deps, 'grant-1');
      if (end === 'owner') await sessions.revokeSession('user', user.id, first!.sid);
      if (end === 'credentials') await endEverySession(deps, 'user', (await deps.accounts.user.update(user.id, { endSessions: true }))!);
      // As an admin's disable does (admin/users.ts): the account's sessions end with it.
      if (end === 'disable') await endEverySession(deps, 'user', (await deps.accounts.user.update(user.id, { disabled: true, endSessions: true }))!);
      if (end === 'forgotten') await deps.appGrants.remove('grant-1');
      expect([end, await appTokenClaims(deps, 'grant-1')]).toEqual([end, undefined]);
      expect([end, await liveAppGrant(deps, 'grant-1')]).toEqual([end, undefined]);
    }
  });

  it("counts a grant live before its first token and while its session stands", async () => {
    const { deps } = await granted();
    expect(await liveAppGrant(deps, 'grant-1')).toMatchObject({ appId: 'desktop' });
    await appTokenClaims(deps, 'grant-1');
    expect(await liveAppGrant(deps, 'grant-1')).toMatchObject({ sessionId: expect.any(String) });
    expect(await liveAppGrant(deps, undefined)).toBeUndefined();
    expect(await liveAppGrant(deps, 'another')).toBeUndefined();
  });

  it('ends the session when the grant ends at the provider, and tells the other services', async () => {
    const { deps, user, sessions } = await granted();
    const first = await appTokenClaims(deps, 'grant-1');
    await endAppGrant(deps, 'grant-1', requestOf());
    expect(await sessions.isActive('user', first!.sid, user.id)).toBe(false);
    expect(deps.outbox.events.filter((e) => e.type === 'account.sessions.ended').map((e) => e.input)).toEqual([expect.objectContaining({ accountId: user.id, sessionIds: [first!.sid] })]);
    expect(await appTokenClaims(deps, 'grant-1')).toBeUndefined();
    // The history: the sign-in, the app's first token, the end of its access and of its session.
    expect(deps.activity.entries.map((e) => [e.type, e.details])).toEqual([
      ['app_signed_in', ['Desktop']],
      ['app_token_issued', ['Desktop']],
      ['app_access_revoked', ['Desktop']],
      ['sessions_ended', ['1 session']],
    ]);
  });

  it('ends the session when its kept refresh token is found used again, and gives no token', async () => {
    const { deps, user, sessions } = await granted();
    const first = await appTokenClaims(deps, 'grant-1');
    const kept = (await deps.appGrants.find('grant-1'))!.sessionToken!;
    await appTokenClaims(deps, 'grant-1');
    const ended = () => deps.outbox.events.filter((e) => e.type === 'account.sessions.ended').map((e) => e.input);
    // A renewal ends nothing.
    expect(ended()).toEqual([]);
    // The replaced token put back, as a race or a copy of the store would.
    await deps.appGrants.updateSessionToken('grant-1', kept);
    expect(await appTokenClaims(deps, 'grant-1')).toBeUndefined();
    expect(await sessions.isActive('user', first!.sid, user.id)).toBe(false);
    expect(ended()).toEqual([expect.objectContaining({ accountId: user.id, sessionIds: [first!.sid] })]);
  });

  it('leaves no second session behind when two first tokens race', async () => {
    const { deps, user, sessions } = await granted();
    const [a, b] = await Promise.all([appTokenClaims(deps, 'grant-1'), appTokenClaims(deps, 'grant-1')]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect((await sessions.list('user', user.id)).filter((s) => s.app)).toHaveLength(1);
  });
});

describe('telling an app that its session ended (back-channel logout)', () => {
  const LOGOUT = { sid: 'provider-sid-1' };
  const toldDesktop = [{ kind: 'user', accountId: expect.any(String), appId: 'desktop', sid: 'provider-sid-1' }];

  it('tells an app that asked of each way its session ends, once', async () => {
    for (const end of ['owner', 'others', 'credentials', 'disable', 'reuse'] as const) {
      const { deps, user, claims } = await granted();
      const first = await appTokenClaims(deps, 'grant-1', LOGOUT);
      // A renewal tells nothing.
      await appTokenClaims(deps, 'grant-1', LOGOUT);
      expect([end, deps.appLogouts.told]).toEqual([end, []]);
      if (end === 'owner') await signOutSession(deps, claims, first!.sid);
      if (end === 'others') await signOutOthers(deps, claims);
      if (end === 'credentials') await endEverySession(deps, 'user', (await deps.accounts.user.update(user.id, { endSessions: true }))!);
      if (end === 'disable') await endEverySession(deps, 'user', (await deps.accounts.user.update(user.id, { disabled: true, endSessions: true }))!);
      if (end === 'reuse') {
        const kept = (await deps.appGrants.find('grant-1'))!.sessionToken!;
        await appTokenClaims(deps, 'grant-1', LOGOUT);
        await deps.appGrants.updateSessionToken('grant-1', kept);
        expect(await appTokenClaims(deps, 'grant-1', LOGOUT)).toBeUndefined();
      }
      expect([end, deps.appLogouts.told]).toEqual([end, toldDesktop]);
      // Ended again (every session of the account, say): the app was told already.
      await endEverySession(deps, 'user', (await deps.accounts.user.update(user.id, { endSessions: true }))!);
      expect([end, deps.appLogouts.told.length]).toEqual([end, 1]);
    }
  });

  it('tells it when the account is deleted', async () => {
    const { deps, claims } = await granted();
    await appTokenClaims(deps, 'grant-1', LOGOUT);
    await deleteOwnAccount(deps, claims, { password: 'right password' }, requestOf());
    expect(deps.appLogouts.told).toEqual(toldDesktop);
  });

  it("tells an admins' app too, when the admin's credentials change", async () => {
    const base = await memorySignIn();
    const sessions = new MemorySessions();
    const deps = { ...base.deps, sessions, appGrants: new MemoryAppGrants(), revocations: { isRevoked: () => false as const } };
    const admin = await base.make('admin', 'ada@example.com');
    const page = await sessions.create({ kind: 'admin', accountId: admin.id, role: 'admin', credentialEpoch: 0 });
    const panel = { id: 'admin-panel', name: 'Admin panel', kind: 'admin' as const, firstParty: true };
    const approval = await approveAppSignIn(deps, claimsOf('admin', admin, page.sessionId), panel, { freshLogin: false }, requestOf());
    await recordAppGrant(deps, 'grant-a', panel, approval, requestOf(), 60_000);
    expect(await appTokenClaims(deps, 'grant-a', { sid: 'provider-sid-a' })).toMatchObject({ kind: 'admin' });
    await endEverySession(deps, 'admin', (await deps.accounts.admin.update(admin.id, { endSessions: true }))!);
    expect(deps.appLogouts.told).toEqual([{ kind: 'admin', accountId: admin.id, appId: 'admin-panel', sid: 'provider-sid-a' }]);
  });

  it("does not tell an app of the end of another session, nor one that did not ask", async () => {
    const { deps, claims } = await granted();
    await appTokenClaims(deps, 'grant-1', LOGOUT);
    // The page's own session ends: the app's goes on.
    await signOutSession(deps, claims, claims.sid);
    expect(deps.appLogouts.told).toEqual([]);
    const other = await granted();
    await appTokenClaims(other.deps, 'grant-1');
    await endEverySession(other.deps, 'user', (await other.deps.accounts.user.update(other.user.id, { endSessions: true }))!);
    expect(other.deps.appLogouts.told).toEqual([]);
  });

  it('does not tell the app of an end it made itself at the provider (a revocation, its logout, a token used twice)', async () => {
    const { deps, user, sessions } = await granted();
    const first = await appTokenClaims(deps, 'grant-1', LOGOUT);
    await endAppGrant(deps, 'grant-1', requestOf());
    expect(await sessions.isActive('user', first!.sid, user.id)).toBe(false);
    expect(deps.appLogouts.told).toEqual([]);
    expect(deps.appLogouts.watched.size).toBe(0);
  });
});

describe('the apps with access, as the owner sees them and takes them back', () => {
  const PARTNER: App = { id: 'partner', name: 'Partner', kind: 'user', firstParty: false };

  it('lists the apps holding a session and those allowed on a consent page; taking one back ends its sessions and forgets the consent', async () => {
    const s = await granted();
    await appTokenClaims(s.deps, 'grant-1');
    await approveAppSignIn(s.deps, s.claims, PARTNER, { freshLogin: false, consent: { asked: ['openid', 'email'], given: true, askAgain: false } }, requestOf());
    // Most recently used first: here both within the same millisecond or two, so read by id.
    const listed = (await appsWithAccess(s.deps, s.claims)).sort((a, b) => a.id.localeCompare(b.id));
    expect(listed).toEqual([
      { id: 'desktop', name: 'Desktop', sessions: 1, lastUsedAt: expect.any(String), allowed: null },
      { id: 'partner', name: 'Partner', sessions: 0, lastUsedAt: null, allowed: { scopes: ['openid', 'email'], at: expect.any(String) } },
    ]);

    await revokeAppAccess(s.deps, s.claims, 'partner', requestOf());
    await expect(approveAppSignIn(s.deps, s.claims, PARTNER, { freshLogin: false, consent: { asked: ['openid'], given: false, askAgain: false } }, requestOf())).rejects.toEqual(AuthErrors.consentRequired());

    const appSession = [...s.sessions.live.entries()].find(([, v]) => v.owner.app?.id === 'desktop')![0];
    await revokeAppAccess(s.deps, s.claims, 'desktop', requestOf());
    expect(s.sessions.live.has(appSession)).toBe(false);
    // The page's own session goes on; the app's next token is refused.
    expect(s.sessions.live.has(s.page.sessionId)).toBe(true);
    expect(await appTokenClaims(s.deps, 'grant-1')).toBeUndefined();
    expect(s.deps.activity.entries.filter((e) => e.type === 'app_access_revoked').map((e) => e.details)).toEqual([['Partner'], ['Desktop']]);
    expect(await appsWithAccess(s.deps, s.claims)).toEqual([]);
    await expect(revokeAppAccess(s.deps, s.claims, 'desktop', requestOf())).rejects.toEqual(AuthErrors.appNotFound());
  });

  it("forgets the account's consents with the account", async () => {
    const s = await granted();
    await approveAppSignIn(s.deps, s.claims, PARTNER, { freshLogin: false, consent: { asked: ['openid'], given: true, askAgain: false } }, requestOf());
    await deleteOwnAccount(s.deps, s.claims, { password: 'right password' }, requestOf());
    expect(await s.deps.appConsents.list('user', s.user.id)).toEqual([]);
  });
});
