// The apps admins register, on in-memory ports: what an app may be (redirect URIs matched exactly,
// so each is checked whole; scopes; what stays as registered), its secret shown once and kept as a
// hash, a new secret with an overlap, the apps of configuration listed and left alone, and deleting an
// app ending every session it holds. The protocol's side (a relying party with the shown secret) is
// the end-to-end test's (openid-provider.response).
import { AuthErrors } from '../../src/errors';
import { appTokenClaims, approveAppSignIn, recordAppGrant } from '../../src/domain/apps/app-sign-in';
import { appForProtocol, appSecretHash, appSecretMatches, deleteApp, getApp, listApps, readAppDefinition, registerApp, rotateAppSecret, updateApp } from '../../src/domain/apps/managed-apps';
import type { DeclaredApp } from '../../src/domain/apps/ports';
import { MemoryAppGrants, MemoryManagedApps, MemorySessions, claimsOf, memorySignIn, requestOf } from '../fakes';

const DESKTOP: DeclaredApp = {
  id: 'desktop',
  name: 'Desktop',
  kind: 'user',
  firstParty: true,
  confidential: false,
  native: true,
  deviceCode: false,
  redirectUris: ['http://127.0.0.1/callback'],
  postLogoutRedirectUris: [],
  scopes: ['openid', 'profile', 'email', 'offline_access'],
};
const PARTNER = { name: 'Partner', confidential: true, redirectUris: ['https://partner.example/callback'] };

async function setUp(enabled = true) {
  const base = await memorySignIn();
  const sessions = new MemorySessions();
  const managedApps = new MemoryManagedApps();
  const deps = {
    ...base.deps,
    sessions,
    managedApps,
    appGrants: new MemoryAppGrants(),
    revocations: { isRevoked: () => false as const },
    policy: { ...base.deps.policy, apps: { enabled, declared: [DESKTOP] } },
  };
  const admin = await base.make('admin', 'ada@example.com');
  const page = await sessions.create({ kind: 'admin', accountId: admin.id, role: 'admin', credentialEpoch: 0 });
  const ctx = { ...requestOf(), actor: claimsOf('admin', admin, page.sessionId) };
  return { deps, base, admin, ctx, managedApps, sessions };
}

const refused = (message: RegExp) => expect.objectContaining({ code: 'validation_failed', message: expect.stringMatching(message) });

describe("an app's definition", () => {
  it('takes https redirects, and http on the loopback alone', () => {
    expect(readAppDefinition({ name: 'A', redirectUris: ['https://a.example/cb', 'http://127.0.0.1:8000/cb', 'http://localhost/cb', 'http://[::1]/cb'] }).redirectUris).toHaveLength(4);
    expect(() => readAppDefinition({ name: 'A', redirectUris: ['http://a.example/cb'] })).toThrow(refused(/http is only for this machine's loopback/));
    // 127.0.0.1.example.com is not the loopback.
    expect(() => readAppDefinition({ name: 'A', redirectUris: ['http://127.0.0.1.evil.example/cb'] })).toThrow(refused(/loopback/));
  });

  it('refuses fragments, credentials, relative URIs and schemes that run code', () => {
    for (const uri of ['https://a.example/cb#x', 'https://user:pw@a.example/cb', '/cb', 'javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd']) {
      expect(() => readAppDefinition({ name: 'A', redirectUris: [uri] })).toThrow(refused(/redirectUris/));
      expect(() => readAppDefinition({ name: 'A', redirectUris: ['https://a.example/cb'], postLogoutRedirectUris: [uri] })).toThrow(refused(/postLogoutRedirectUris/));
    }
  });

  it('lets a native app use a private-use scheme named as a reverse domain, and nothing else does', () => {
    expect(readAppDefinition({ name: 'D', native: true, redirectUris: ['com.example.desktop:/callback'] }).redirectUris).toEqual(['com.example.desktop:/callback']);
    expect(() => readAppDefinition({ name: 'D', native: true, redirectUris: ['myapp:/callback'] })).toThrow(refused(/reverse domain/));
    expect(() => readAppDefinition({ name: 'W', redirectUris: ['com.example.web:/callback'] })).toThrow(refused(/https, or http on the loopback/));
  });

  it('needs a redirect or the device grant, openid among its scopes, and no secret for a native app', () => {
    expect(() => readAppDefinition({ name: 'A' })).toThrow(refused(/needs one, or deviceCode/));
    expect(readAppDefinition({ name: 'TV', deviceCode: true })).toMatchObject({ deviceCode: true, redirectUris: [] });
    expect(() => readAppDefinition({ name: 'A', redirectUris: ['https://a.example/cb'], scopes: ['profile'] })).toThrow(refused(/openid is always/));
    expect(() => readAppDefinition({ name: 'A', redirectUris: ['https://a.example/cb'], scopes: ['openid', 'admin'] })).toThrow(refused(/scopes: among/));
    expect(() => readAppDefinition({ name: 'A', native: true, confidential: true, redirectUris: ['http://127.0.0.1/cb'] })).toThrow(refused(/native app keeps no secret/));
    expect(() => readAppDefinition({ name: '', redirectUris: ['https://a.example/cb'] })).toThrow(refused(/name/));
    expect(() => readAppDefinition({ name: 'x'.repeat(65), redirectUris: ['https://a.example/cb'] })).toThrow(refused(/name/));
    expect(readAppDefinition({ name: 'x'.repeat(64), redirectUris: ['https://a.example/cb'] }).name).toBe('x'.repeat(64));
    expect(() => readAppDefinition({ name: 'A\u202e', redirectUris: ['https://a.example/cb'] })).toThrow(refused(/name/));
  });

  it('keeps kind, confidential and native as registered, and takes the rest from a change', () => {
    const before = readAppDefinition({ name: 'A', confidential: true, redirectUris: ['https://a.example/cb'], backchannelLogoutUri: 'https://a.example/logout' });
    expect(() => readAppDefinition({ confidential: false }, before)).toThrow(refused(/fixed at registration/));
    expect(() => readAppDefinition({ kind: 'admin' }, before)).toThrow(refused(/fixed at registration/));
    const after = readAppDefinition({ name: 'B', firstParty: true, backchannelLogoutUri: null }, before);
    expect(after).toEqual({ ...before, name: 'B', firstParty: true, backchannelLogoutUri: undefined });
    expect('backchannelLogoutUri' in after).toBe(false);
  });
});

describe('registering an app', () => {
  it('shows a confidential app its secret once, keeps its hash alone, and notes it in the admin activity', async () => {
    const { deps, ctx, managedApps, admin } = await setUp();
    const { app, secret } = await registerApp(deps, PARTNER, ctx);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(app).toMatchObject({ id: expect.stringMatching(/^app-[0-9a-f]{24}$/), name: 'Partner', source: 'console', confidential: true, secrets: [{ createdAt: expect.any(String) }] });
    expect(JSON.stringify(app)).not.toContain(secret!);
    expect(JSON.stringify(await getApp(deps, app.id))).not.toContain(secret!);
    const kept = managedApps.apps.get(app.id)!;
    expect(kept.secrets).toEqual([{ hash: appSecretHash(secret!), createdAt: expect.any(Date) }]);
    expect(JSON.stringify(kept)).not.toContain(secret!);
    expect(deps.activity.entries.map((e) => [e.kind, e.accountId, e.type, e.details])).toEqual([['admin', admin.id, 'app_registered', ['Partner', app.id]]]);
  });

  it('gives a public app no secret', async () => {
    const { deps, ctx } = await setUp();
    const registered = await registerApp(deps, { name: 'SPA', redirectUris: ['https://spa.example/cb'] }, ctx);
    expect(registered.secret).toBeUndefined();
    await expect(rotateAppSecret(deps, registered.app.id, {}, ctx)).rejects.toEqual(refused(/public app has no secret/));
  });

  it('lists the apps of configuration first, read-only, then those of the console', async () => {
    const { deps, ctx } = await setUp();
    const { app } = await registerApp(deps, PARTNER, ctx);
    expect((await listApps(deps)).map((a) => [a.id, a.source])).toEqual([['desktop', 'configuration'], [app.id, 'console']]);
    await expect(updateApp(deps, 'desktop', { name: 'Mine' }, ctx)).rejects.toEqual(AuthErrors.appDeclared());
    await expect(deleteApp(deps, 'desktop', ctx)).rejects.toEqual(AuthErrors.appDeclared());
    await expect(rotateAppSecret(deps, 'desktop', {}, ctx)).rejects.toEqual(AuthErrors.appDeclared());
    expect(await appForProtocol(deps, 'desktop')).toBeUndefined();
    await expect(getApp(deps, 'app-unknown')).rejects.toEqual(AuthErrors.appNotFound());
  });

  it('answers no app at all while the provider is off', async () => {
    const { deps, ctx, managedApps } = await setUp(false);
    await expect(listApps(deps)).rejects.toEqual(AuthErrors.openIdProviderOff());
    await expect(registerApp(deps, PARTNER, ctx)).rejects.toEqual(AuthErrors.openIdProviderOff());
    const now = new Date();
    await managedApps.create({ id: 'app-left', ...readAppDefinition(PARTNER), secrets: [], createdAt: now, updatedAt: now });
    expect(await appForProtocol(deps, 'app-left')).toBeUndefined();
  });
});

describe("an app's secrets", () => {
  it('match only what was shown, and every kept one is compared', () => {
    const secrets = [{ hash: appSecretHash('new secret'), createdAt: new Date() }, { hash: appSecretHash('old secret'), createdAt: new Date(), expiresAt: new Date(Date.now() + 60_000) }];
    expect(appSecretMatches(secrets, 'new secret')).toBe(true);
    expect(appSecretMatches(secrets, 'old secret')).toBe(true);
    expect(appSecretMatches(secrets, 'old secret', new Date(Date.now() + 120_000))).toBe(false);
    for (const wrong of ['', 'new secre', 'new secret ', appSecretHash('new secret'), 42, undefined]) expect(appSecretMatches(secrets, wrong)).toBe(false);
  });

  it('rotate with an overlap: the old secret works until it ends, then only the new one', async () => {
    const { deps, ctx, admin } = await setUp();
    const { app, secret: first } = await registerApp(deps, PARTNER, ctx);
    const { secret: second, app: after } = await rotateAppSecret(deps, app.id, { overlapHours: 2 }, ctx);
    expect(after.secrets).toHaveLength(2);
    const kept = (await appForProtocol(deps, app.id))!.secrets;
    expect(appSecretMatches(kept, second)).toBe(true);
    expect(appSecretMatches(kept, first)).toBe(true);
    const ends = kept.find((s) => s.hash === appSecretHash(first!))!.expiresAt!.getTime();
    expect(ends - Date.now()).toBeGreaterThan(2 * 3_600_000 - 5_000);
    expect(ends - Date.now()).toBeLessThanOrEqual(2 * 3_600_000);
    expect(appSecretMatches(kept, first, new Date(ends + 1))).toBe(false);
    // A second rotation keeps the first's end, not a new one of its own, and at 0 hours drops them all.
    const { secret: third } = await rotateAppSecret(deps, app.id, { overlapHours: 24 }, ctx);
    const again = (await appForProtocol(deps, app.id))!.secrets;
    expect(again.find((s) => s.hash === appSecretHash(first!))!.expiresAt!.getTime()).toBe(ends);
    await rotateAppSecret(deps, app.id, { overlapHours: 0 }, ctx);
    const last = (await appForProtocol(deps, app.id))!.secrets;
    expect(last).toHaveLength(1);
    expect([first, second, third].map((s) => appSecretMatches(last, s))).toEqual([false, false, false]);
    expect(deps.activity.entries.filter((e) => e.type === 'app_secret_rotated').map((e) => [e.accountId, e.details![2]])).toEqual([
      [admin.id, expect.stringMatching(/^the old secret works until \d{4}-/)],
      [admin.id, expect.stringMatching(/^the old secret works until /)],
      [admin.id, 'the old secret works no more'],
    ]);
  });

  it('refuses an overlap that is no whole number of hours from 0 to 168', async () => {
    const { deps, ctx } = await setUp();
    const { app } = await registerApp(deps, PARTNER, ctx);
    for (const overlapHours of [-1, 169, 1.5, '2', null]) await expect(rotateAppSecret(deps, app.id, { overlapHours }, ctx)).rejects.toEqual(refused(/overlapHours/));
  });
});

describe('changing and deleting an app', () => {
  it('names what changed in the activity, and a change that changes nothing is not noted', async () => {
    const { deps, ctx } = await setUp();
    const { app } = await registerApp(deps, PARTNER, ctx);
    const updated = await updateApp(deps, app.id, { name: 'Partner Two', redirectUris: ['https://partner.example/cb2'] }, ctx);
    expect(updated).toMatchObject({ name: 'Partner Two', redirectUris: ['https://partner.example/cb2'] });
    await updateApp(deps, app.id, { name: 'Partner Two' }, ctx);
    expect(deps.activity.entries.filter((e) => e.type === 'app_updated').map((e) => e.details)).toEqual([['Partner Two', app.id, 'changed: name, redirectUris']]);
  });

  it('ends every session the app holds, and the app signs no one in any more', async () => {
    const { deps, ctx, base, sessions } = await setUp();
    const { app } = await registerApp(deps, { name: 'Partner', redirectUris: ['https://partner.example/cb'], firstParty: true }, ctx);
    const user = await base.make('user', 'grace@example.com');
    const page = await sessions.create({ kind: 'user', accountId: user.id, role: 'user', credentialEpoch: 0 });
    const asApp = { id: app.id, name: app.name, kind: 'user' as const, firstParty: true };
    for (const grantId of ['g1', 'g2']) {
      const approval = await approveAppSignIn(deps, claimsOf('user', user, page.sessionId), asApp, { freshLogin: false }, requestOf());
      await recordAppGrant(deps, grantId, asApp, approval, requestOf(), 60_000);
      await appTokenClaims(deps, grantId);
    }
    const appSessions = () => [...sessions.live.values()].filter((s) => s.owner.app?.id === app.id).length;
    expect(appSessions()).toBe(2);
    await deleteApp(deps, app.id, ctx);
    expect(appSessions()).toBe(0);
    expect(await appForProtocol(deps, app.id)).toBeUndefined();
    expect(await appTokenClaims(deps, 'g1')).toBeUndefined();
    expect(deps.activity.entries.filter((e) => e.type === 'app_deleted').map((e) => e.details)).toEqual([['Partner', app.id, 'sessions ended: 2']]);
    expect(deps.activity.entries.filter((e) => e.type === 'app_access_revoked' && e.accountId === user.id)).toHaveLength(2);
    await expect(deleteApp(deps, app.id, ctx)).rejects.toEqual(AuthErrors.appNotFound());
  });
});
