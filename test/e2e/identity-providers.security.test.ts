// Identity providers: sign-in, linking and the development provider.

import mongoose from 'mongoose';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { call } from '@acct/test-harness/http-client';
import { buildAccount, registerAndLogin } from '@acct/test-harness/factories';
import { proofRunsOut, testUrls } from '@acct/test-harness/isolation';
import { startIdentityProvider, type TestIdentityProvider } from '@acct/test-harness/oidc-provider';
import { RedirectBrowser, type Landing } from '@acct/test-harness/redirect-browser';
import { until } from '@acct/test-harness/until';
import { freePort } from '@acct/test-harness/ports';
import { startStack, type TestStack } from '@acct/test-stack/stack';
import { spawn, type ChildProcess } from 'node:child_process';
import { stopChild } from '@acct/test-harness/processes';

// Sign-in with an identity provider, end to end: a real OpenID Connect provider (oidc-provider) on a
// loopback port, the stack behind its gateway, and a browser that follows every redirect, fills the
// provider's login and consent forms and keeps cookies per host. The API's public host name
// (`api.test`) maps to the gateway, as DNS would; the app's page is where each flow lands.
//
// Every refusal is one wrong thing in an otherwise valid answer: ID tokens are signed with the
// provider's own key and differ from a good one in one claim, and a good one is shown to pass. The
// linking policy's cases (which address links, a link ending with a credential change, another
// account's identity, an admin's second step) are test/domain/identity.test.ts's, in milliseconds;
// here each route and cookie is seen working once.
describe('identity-providers.security', () => {
  const API_HOST = 'api.test';
  const APP = 'http://localhost:3000/signed-in';
  const CLIENT = { client_id: 'account-service', client_secret: 'identity-provider-test-secret' };
  const callbackOf = (provider: string, kind = 'user') => `http://${API_HOST}/api/auth/${kind}/oidc/${provider}/callback`;

  let idp: TestIdentityProvider;
  /** oidc-provider as it ships: the email claims only through userinfo. */
  let stockIdp: TestIdentityProvider;
  let stack: TestStack;
  let latePort: number;
  let lateIdp: TestIdentityProvider | undefined;

  beforeAll(async () => {
    idp = await startIdentityProvider({ clients: [{ ...CLIENT, redirect_uris: [callbackOf('corp'), callbackOf('corp', 'admin')] }] });
    stockIdp = await startIdentityProvider({ stock: true, clients: [{ ...CLIENT, redirect_uris: [callbackOf('stock')] }] });
    latePort = await freePort();
    stack = await startStack('oidc', {
      auth: {
        EMAIL_VERIFICATION: 'soft',
        OIDC_PROVIDERS: JSON.stringify([
          { id: 'corp', name: 'Corp SSO', issuer: idp.issuer, clientId: CLIENT.client_id },
          { id: 'stock', name: 'Stock', issuer: stockIdp.issuer, clientId: CLIENT.client_id },
          // Nothing listens here at start: only this provider's routes may suffer.
          { id: 'late', name: 'Late', issuer: `http://127.0.0.1:${latePort}`, clientId: 'late-client' },
        ]),
        OIDC_CLIENT_SECRETS: JSON.stringify({ corp: CLIENT.client_secret, stock: CLIENT.client_secret }),
        OIDC_REDIRECT_URL_BASE: `http://${API_HOST}`,
        OIDC_APP_URLS: APP,
        OIDC_ADMIN_PROVIDERS: 'corp',
      },
    });
    const available = async (id: string) => (await call(stack.url, 'GET', '/api/auth/identity-providers')).body.data.providers.find((p: { id: string }) => p.id === id)?.available;
    await until(async () => (await available('corp')) && (await available('stock')), 10_000, 'the providers discovered');
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await idp?.stop();
    await stockIdp?.stop();
    await lateIdp?.stop();
  });

  const newBrowser = (provider = idp) => new RedirectBrowser({ [API_HOST]: stack.url, [new URL(provider.issuer).host]: '' });
  const startUrl = (provider = 'corp', returnTo?: string) => `http://${API_HOST}/api/auth/user/oidc/${provider}/start${returnTo ? `?returnTo=${encodeURIComponent(returnTo)}` : ''}`;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  let serial = 0;

  /** A person at the provider. */
  async function person(overrides: { email?: string; email_verified?: unknown; name?: string } = {}, at = idp) {
    serial += 1;
    const sub = `person-${Date.now()}-${serial}`;
    const account = { sub, email: `${sub}@example.com`, email_verified: true as unknown, name: 'Pat Provider', ...overrides };
    await at.addAccount(account);
    return account;
  }

  /** The whole flow in a browser: start, the provider's forms, back to the app. */
  async function signInWith(browser: RedirectBrowser, sub: string, start = startUrl()): Promise<Landing> {
    return browser.follow(start, { login: sub, password: 'any' });
  }

  /** The access token the app gets by refreshing with the cookie the callback set. */
  async function refreshIn(browser: RedirectBrowser) {
    const res = await browser.fetch(`http://${API_HOST}/api/auth/user/refresh`, { method: 'POST' });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  const isCallback = (url: URL) => url.pathname.endsWith('/callback');

  /** Starts a flow and walks the provider's forms, stopping at the redirect back: the callback's URL, not yet visited. */
  async function callbackUrl(browser: RedirectBrowser, sub: string): Promise<URL> {
    const landing = await browser.follow(startUrl(), { login: sub, password: 'any' }, isCallback);
    expect(landing.url.host).toBe(API_HOST);
    return landing.url;
  }

  describe('sign-in with an identity provider', () => {
    it('creates a passwordless user on first sign-in, with the session, cookie and push of a password login', async () => {
      const someone = await person({ name: 'Robin Example' });
      const browser = newBrowser();
      const landing = await signInWith(browser, someone.sub);
      expect(landing.url.href).toBe(APP);
      // The start went to the provider with PKCE (S256), state and nonce.
      const authorize = new URL(landing.visited.find((u) => u.startsWith(`${idp.issuer}/auth?`)) as string);
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(authorize.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(authorize.searchParams.get('redirect_uri')).toBe(callbackOf('corp'));

      const refreshed = await refreshIn(browser);
      expect(refreshed.status).toBe(200);
      const token = refreshed.body.data.accessToken as string;
      const me = await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer(token) });
      expect(me.body.data.user).toMatchObject({ email: someone.email, name: 'Robin Example', emailVerified: true });
      const userId = me.body.data.user.id as string;
      await stack.events.waitFor('user.login.succeeded', (p) => p.userId === userId);

      // A later sign-in is the same account.
      const again = newBrowser();
      await signInWith(again, someone.sub);
      const second = await refreshIn(again);
      const meAgain = await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer(second.body.data.accessToken) });
      expect(meAgain.body.data.user.id).toBe(userId);

      // The contract's passwordless case: a password login fails with its record.
      const login = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: someone.email, password: 'whatever-it-is' } });
      expect([login.status, login.body.code]).toEqual([401, 'invalid_credentials']);
      expect(stack.logs.audit).toContainEqual(expect.objectContaining({ email: someone.email, message: 'User login failed: password not set' }));
    });

    it('lets a passwordless owner set a password with forgot/reset, then sign in either way', async () => {
      const someone = await person();
      await signInWith(newBrowser(), someone.sub);
      const requestId = `oidc-forgot-${someone.sub}`;
      await call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email: someone.email }, headers: { 'x-request-id': requestId } });
      const reset = await stack.events.waitFor('account.password_reset.requested', (p) => p.email === someone.email);
      const token = new URL(reset.payload.resetUrl).searchParams.get('token');
      expect((await call(stack.url, 'POST', '/api/auth/user/reset-password', { body: { token, newPassword: 'a-new-password-42' } })).status).toBe(200);
      expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: someone.email, password: 'a-new-password-42' } })).status).toBe(200);
      const browser = newBrowser();
      expect((await signInWith(browser, someone.sub)).url.href).toBe(APP);
      expect((await refreshIn(browser)).status).toBe(200);
    });

    it('returns only to allow-listed app URLs (no open redirect)', async () => {
      const browser = newBrowser();
      for (const returnTo of ['https://evil.example/signed-in', 'http://localhost:3000/other', 'http://localhost:3000/signed-in-evil', 'javascript:alert(1)', 'http://user@localhost:3000/signed-in']) {
        const res = await browser.fetch(startUrl('corp', returnTo));
        expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([400, 'return_url_not_allowed']);
      }
      const someone = await person();
      const landing = await signInWith(browser, someone.sub, startUrl('corp', `${APP}/deeper?tab=1`));
      expect(landing.url.href).toBe(`${APP}/deeper?tab=1`);
    });

    it('refuses a callback with a wrong state, a replayed one, and one from another browser', async () => {
      const someone = await person();
      const browser = newBrowser();
      const callback = await callbackUrl(browser, someone.sub);

      const forged = new URL(callback);
      forged.searchParams.set('state', 'x'.repeat(43));
      expect((await browser.follow(forged)).url.searchParams.get('error')).toBe('identity_state_invalid');

      // Another browser (no flow cookie, or a cookie of its own flow) presenting the real callback: refused, twice.
      const other = newBrowser();
      expect((await other.follow(callback)).url.searchParams.get('error')).toBe('identity_state_invalid');
      await callbackUrl(other, someone.sub);
      expect((await other.follow(callback)).url.searchParams.get('error')).toBe('identity_state_invalid');
      expect((await refreshIn(other)).status).toBe(401);
      expect(stack.logs.audit).toContainEqual(expect.objectContaining({ message: 'User identity sign-in failed', reason: 'identity_state_invalid', detail: 'flow cookie missing or of another browser' }));

      // The leaked URL did not use the flow up: its own browser completes it, once.
      expect((await browser.follow(callback)).url.href).toBe(APP);
      expect((await refreshIn(browser)).status).toBe(200);
      const replayed = await browser.follow(callback);
      expect(replayed.url.searchParams.get('error')).toBe('identity_state_invalid');
      expect(stack.logs.audit).toContainEqual(expect.objectContaining({ message: 'User identity sign-in failed', reason: 'identity_state_invalid', provider: 'corp' }));
    });

    describe('ID tokens wrong in one claim', () => {
      /** A flow up to the callback, with the nonce the service sent, and the claims of a valid ID token for it. */
      async function flowWithClaims() {
        const someone = await person();
        const browser = newBrowser();
        const start = await browser.fetch(startUrl());
        const authorize = new URL(start.headers.get('location') as string);
        const landing = await browser.follow(authorize, { login: someone.sub, password: 'any' }, isCallback);
        expect(landing.url.pathname).toBe('/api/auth/user/oidc/corp/callback');
        const now = Math.floor(Date.now() / 1000);
        const claims = {
          iss: idp.issuer,
          aud: CLIENT.client_id,
          sub: someone.sub,
          nonce: authorize.searchParams.get('nonce'),
          iat: now,
          exp: now + 300,
          email: someone.email,
          email_verified: true,
        };
        return { browser, callback: landing.url, claims, someone };
      }

      async function outcome(change: (claims: Record<string, unknown>) => Record<string, unknown>, options: { otherKey?: boolean } = {}) {
        const { browser, callback, claims } = await flowWithClaims();
        await idp.replaceNextIdToken(idp.signIdToken(change(claims), options));
        const landing = await browser.follow(callback);
        return { error: landing.url.searchParams.get('error'), refresh: (await refreshIn(browser)).status };
      }

      it('accepts the valid one (so each refusal below is that claim alone)', async () => {
        expect(await outcome((c) => c)).toEqual({ error: null, refresh: 200 });
      });

      it.each([
        ['a nonce of another flow', (c: Record<string, unknown>) => ({ ...c, nonce: 'n'.repeat(43) })],
        ['another issuer', (c: Record<string, unknown>) => ({ ...c, iss: 'http://127.0.0.1:1/other' })],
        ['another client', (c: Record<string, unknown>) => ({ ...c, aud: 'another-client' })],
        ['an expired token', (c: Record<string, unknown>) => ({ ...c, iat: Number(c.iat) - 7200, exp: Number(c.iat) - 3600 })],
      ])('refuses %s', async (_name, change) => {
        expect(await outcome(change)).toEqual({ error: 'identity_token_invalid', refresh: 401 });
      });

      it('refuses a token signed with a key the provider does not publish', async () => {
        expect(await outcome((c) => c, { otherKey: true })).toEqual({ error: 'identity_token_invalid', refresh: 401 });
      });
    });

    describe('a provider that gives the email claims through userinfo only (oidc-provider as it ships)', () => {
      it('reads them from userinfo: a verified address signs up and in', async () => {
        const someone = await person({ name: 'Uma Userinfo' }, stockIdp);
        const browser = newBrowser(stockIdp);
        const landing = await signInWith(browser, someone.sub, startUrl('stock'));
        expect(landing.url.href).toBe(APP);
        const refreshed = await refreshIn(browser);
        expect(refreshed.status).toBe(200);
        const me = await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer(refreshed.body.data.accessToken) });
        expect(me.body.data.user).toMatchObject({ email: someone.email, name: 'Uma Userinfo', emailVerified: true });
      });

      it.each([
        ['no email_verified at all', undefined, /no email_verified claim/],
        ['email_verified false', false, /email_verified claim is false, not true/],
        ['email_verified as the string "true"', 'true', /email_verified claim is "true", not true/],
      ])('refuses %s, and the audit record names the claim', async (_label, verified, detail) => {
        const someone = await person({ email_verified: verified }, stockIdp);
        const browser = newBrowser(stockIdp);
        const landing = await signInWith(browser, someone.sub, startUrl('stock'));
        expect(landing.url.searchParams.get('error')).toBe('identity_email_unverified');
        expect((await refreshIn(browser)).status).toBe(401);
        expect(stack.logs.audit).toContainEqual(expect.objectContaining({ event: 'identity_sign_in_failed', provider: 'stock', detail: expect.stringMatching(detail) }));
      });
    });

    it('never takes the string "true" in an ID token for a verified address', async () => {
      const someone = await person({ email_verified: 'true' });
      const browser = newBrowser();
      const landing = await signInWith(browser, someone.sub);
      expect(landing.url.searchParams.get('error')).toBe('identity_email_unverified');
      expect(stack.logs.audit).toContainEqual(expect.objectContaining({ provider: 'corp', detail: expect.stringMatching(/email_verified claim is "true", not true/) }));
    });

    describe('linking', () => {
      it('links when both the provider and the account proved the address, and tells the owner', async () => {
        const account = buildAccount();
        const registered = await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
        const userId = registered.body.data.user.id as string;
        const link = await stack.events.waitFor('account.email_verification.requested', (p) => p.accountId === userId);
        expect((await call(stack.url, 'POST', '/api/auth/user/verify-email', { body: { token: new URL(link.payload.linkUrl).searchParams.get('token') } })).status).toBe(200);

        const same = await person({ email: account.email, email_verified: true });
        const browser = newBrowser();
        expect((await signInWith(browser, same.sub)).url.href).toBe(APP);
        const me = await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer((await refreshIn(browser)).body.data.accessToken) });
        expect(me.body.data.user.id).toBe(userId);
        await stack.events.waitFor('account.security.changed', (p) => p.accountId === userId && p.change === 'identity_linked');
      });

      it('lets a signed-in user link a provider explicitly (after a recent proof), list it, and unlink it, but never the last way in', async () => {
        const { accessToken } = await registerAndLogin(stack);
        const someone = await person({ email: `elsewhere-${Date.now()}@example.org`, email_verified: false });
        const browser = newBrowser();
        // The login a moment ago is the recent proof; the answer sets the flow cookie for the callback.
        const res = await browser.fetch(`http://${API_HOST}/api/auth/user/identities/corp`, { method: 'POST', body: JSON.stringify({ returnTo: APP }), headers: { ...bearer(accessToken), 'content-type': 'application/json' } });
        expect(res.status).toBe(200);
        const { authorizationUrl } = ((await res.json()) as { data: { authorizationUrl: string } }).data;
        const landing = await browser.follow(authorizationUrl, { login: someone.sub, password: 'any' });
        expect(landing.url.searchParams.get('linked')).toBe('corp');

        const list = await call(stack.url, 'GET', '/api/auth/user/identities', { headers: bearer(accessToken) });
        expect(list.body.data.identities).toEqual([{ provider: 'corp', name: 'Corp SSO', email: null, linkedAt: expect.any(String) }]);
        // The account has a password: the identity can go.
        expect((await call(stack.url, 'DELETE', '/api/auth/user/identities/corp', { headers: bearer(accessToken) })).status).toBe(200);
        expect((await call(stack.url, 'DELETE', '/api/auth/user/identities/corp', { headers: bearer(accessToken) })).body.code).toBe('identity_not_found');

        // A passwordless account's only identity cannot.
        const passwordless = await person();
        const other = newBrowser();
        await signInWith(other, passwordless.sub);
        const token = (await refreshIn(other)).body.data.accessToken as string;
        const last = await call(stack.url, 'DELETE', '/api/auth/user/identities/corp', { headers: bearer(token) });
        expect([last.status, last.body.code]).toEqual([409, 'last_sign_in_method']);
      });

      /** Starts linking `corp` to the signed-in account in `browser`: the provider's URL. */
      const startLinking = async (browser: RedirectBrowser, accessToken: string) => {
        const res = await browser.fetch(`http://${API_HOST}/api/auth/user/identities/corp`, { method: 'POST', body: JSON.stringify({ returnTo: APP }), headers: { ...bearer(accessToken), 'content-type': 'application/json' } });
        return { status: res.status, body: (await res.json()) as { code?: string; data: { authorizationUrl: string } } };
      };
      /** A reset by mailed link, as the owner of the account's mailbox does it. */
      const resetByMail = async (id: string, email: string, newPassword: string) => {
        const requestId = `reset-${id}-${Date.now()}`;
        await call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email }, headers: { 'x-request-id': requestId } });
        const mailed = await stack.events.waitFor('account.password_reset.requested', (p) => p.accountId === id && p.requestId === requestId);
        const token = new URL(mailed.payload.resetUrl).searchParams.get('token');
        expect((await call(stack.url, 'POST', '/api/auth/user/reset-password', { body: { token, newPassword } })).status).toBe(200);
      };

      it('refuses to start a link without a recent proof', async () => {
        const { accessToken } = await registerAndLogin(stack);
        await proofRunsOut(stack, accessToken);
        const started = await startLinking(newBrowser(), accessToken);
        expect([started.status, started.body.code]).toEqual([403, 'step_up_required']);
      });

      it('a reset that first proves the address removes an identity linked before it, and says so; once proven, a reset keeps the ones linked after', async () => {
        const { id, account, accessToken } = await registerAndLogin(stack);
        const intruder = await person({ email: `intruder-${Date.now()}@example.org` });
        const browser = newBrowser();
        const started = await startLinking(browser, accessToken);
        expect((await browser.follow(started.body.data.authorizationUrl, { login: intruder.sub, password: 'any' })).url.searchParams.get('linked')).toBe('corp');
        const linked = await stack.events.waitFor('account.security.changed', (p) => p.accountId === id && p.change === 'identity_linked');
        expect(linked.payload.details).toEqual(expect.arrayContaining(['Added: sign-in with corp']));

        // The address had never answered a link: whoever linked `corp` may not be its owner.
        await resetByMail(id, account.email, 'a password chosen by the owner');
        const removed = await stack.events.waitFor('account.security.changed', (p) => p.accountId === id && p.change === 'unproven_ways_in_removed');
        expect(removed.payload.details).toEqual([expect.stringMatching(/^Removed: sign-in with corp, linked \d{4}-\d{2}-\d{2}$/)]);
        const signedIn = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'a password chosen by the owner' } });
        expect((await call(stack.url, 'GET', '/api/auth/user/identities', { headers: bearer(signedIn.body.data.accessToken) })).body.data.identities).toEqual([]);

        // Proven now: an identity the owner links is a mailbox's no more to remove (a mailbox is one factor).
        const ownersBrowser = newBrowser();
        const again = await startLinking(ownersBrowser, signedIn.body.data.accessToken);
        const owner = await person({ email: `owner-${Date.now()}@example.org` });
        expect((await ownersBrowser.follow(again.body.data.authorizationUrl, { login: owner.sub, password: 'any' })).url.searchParams.get('linked')).toBe('corp');
        await resetByMail(id, account.email, 'and another one later on');
        const later = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'and another one later on' } });
        expect((await call(stack.url, 'GET', '/api/auth/user/identities', { headers: bearer(later.body.data.accessToken) })).body.data.identities.map((i: { provider: string }) => i.provider)).toEqual(['corp']);
      });

    });

    it('sends an account with factors of its own to the second step instead of opening a session', async () => {
      const someone = await person();
      const browser = newBrowser();
      await signInWith(browser, someone.sub);
      const token = (await refreshIn(browser)).body.data.accessToken as string;
      const started = await call(stack.url, 'POST', '/api/auth/user/factors/totp', { headers: bearer(token) });
      expect(started.status).toBe(200);
      expect((await call(stack.url, 'POST', '/api/auth/user/factors/totp/confirm', { headers: bearer(token), body: { code: new TOTP({ secret: Secret.fromBase32(started.body.data.secret) }).generate() } })).status).toBe(200);

      const later = newBrowser();
      const landing = await signInWith(later, someone.sub);
      const fragment = new URLSearchParams(landing.url.hash.slice(1));
      expect(fragment.get('factors')).toContain('totp');
      expect(fragment.get('challenge_token')).toBeTruthy();
      expect((await refreshIn(later)).status).toBe(401);
    });

    it('answers 503 for a provider down at start, and nothing else suffers; once it is up, it works', async () => {
      const res = await newBrowser().fetch(startUrl('late'));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
      const providers = await call(stack.url, 'GET', '/api/auth/identity-providers');
      expect(providers.body.data.providers).toEqual([
        { id: 'corp', name: 'Corp SSO', available: true, admins: true },
        { id: 'stock', name: 'Stock', available: true, admins: false },
        { id: 'late', name: 'Late', available: false, admins: false },
      ]);
      expect((await registerAndLogin(stack)).accessToken).toBeTruthy();
      expect((await newBrowser().fetch(startUrl('corp'))).status).toBe(302);
      expect((await newBrowser().fetch(startUrl('nobody'))).status).toBe(404);

      lateIdp = await startIdentityProvider({ port: latePort, clients: [{ client_id: 'late-client', redirect_uris: [callbackOf('late')] }] });
      await until(async () => (await newBrowser(lateIdp).fetch(startUrl('late'))).status === 302, 20_000, 'the late provider discovered');
      const someone = { sub: `late-${Date.now()}`, email: `late-${Date.now()}@example.com`, email_verified: true, name: 'Late Comer' };
      await lateIdp.addAccount(someone);
      const browser = newBrowser(lateIdp);
      expect((await browser.follow(startUrl('late'), { login: someone.sub, password: 'any' })).url.href).toBe(APP);
      expect((await refreshIn(browser)).status).toBe(200);
    }, 40_000);
  });

  describe('admins, through the providers OIDC_ADMIN_PROVIDERS names', () => {
    const adminStart = (provider = 'corp') => `http://${API_HOST}/api/auth/admin/oidc/${provider}/start`;
    let firstAdminToken: string;
    beforeAll(async () => {
      firstAdminToken = (await registerAndLogin(stack, 'admin')).accessToken;
    });
    const newAdmin = () => registerAndLogin(stack, 'admin', bearer(firstAdminToken));
    const adminRefresh = async (browser: RedirectBrowser) => (await browser.fetch(`http://${API_HOST}/api/auth/admin/refresh`, { method: 'POST' })).status;

    /** The signed-in admin links `sub` at the provider (the login a moment ago is the recent proof). */
    async function linkAdmin(accessToken: string, sub: string, provider = 'corp') {
      const browser = newBrowser();
      const res = await browser.fetch(`http://${API_HOST}/api/auth/admin/identities/${provider}`, { method: 'POST', body: JSON.stringify({ returnTo: APP }), headers: { ...bearer(accessToken), 'content-type': 'application/json' } });
      if (res.status !== 200) return res;
      const { authorizationUrl } = ((await res.json()) as { data: { authorizationUrl: string } }).data;
      expect(new URL(authorizationUrl).searchParams.get('redirect_uri')).toBe(callbackOf(provider, 'admin'));
      const landing = await browser.follow(authorizationUrl, { login: sub, password: 'any' });
      expect(landing.url.searchParams.get('linked')).toBe(provider);
      return res;
    }

    it('signs an admin in only through an identity the admin linked: never by a matching address, never as a user', async () => {
      const admin = await newAdmin();
      const sameAddress = await person({ email: admin.account.email, email_verified: true });
      const refused = newBrowser();
      expect((await refused.follow(adminStart(), { login: sameAddress.sub, password: 'any' })).url.searchParams.get('error')).toBe('identity_not_linked');
      expect(await adminRefresh(refused)).toBe(401);
      expect(stack.logs.audit).toContainEqual(expect.objectContaining({ message: 'Admin identity sign-in failed', reason: 'identity_not_linked', provider: 'corp' }));

      const someone = await person();
      await linkAdmin(admin.accessToken, someone.sub);
      const list = await call(stack.url, 'GET', '/api/auth/admin/identities', { headers: bearer(admin.accessToken) });
      expect(list.body.data).toEqual({
        identities: [{ provider: 'corp', name: 'Corp SSO', email: someone.email, linkedAt: expect.any(String) }],
        // Only the providers admins may use.
        providers: [{ id: 'corp', name: 'Corp SSO', available: true }],
      });
      // The admin's identity never opens, nor creates, a user account.
      const asUser = newBrowser();
      expect((await signInWith(asUser, someone.sub)).url.searchParams.get('error')).toBe('identity_taken');
      expect((await refreshIn(asUser)).status).toBe(401);
    });

    it('always asks for the second step: the admin\'s own factors, else the mailed code; an admin with neither is refused', async () => {
      const admin = await newAdmin();
      const someone = await person();
      await linkAdmin(admin.accessToken, someone.sub);

      // This admin has the mailed code off (ADMIN_2FA_DEFAULT=false here) and no factor of its own.
      const none = newBrowser();
      expect((await none.follow(adminStart(), { login: someone.sub, password: 'any' })).url.searchParams.get('error')).toBe('second_factor_required');
      expect(await adminRefresh(none)).toBe(401);

      const conn = await mongoose.createConnection(testUrls().mongo, { dbName: `${stack.names.mongoDb}_auth` }).asPromise();
      await conn.collection('admins').updateOne({ email: admin.account.email }, { $set: { twoFactorEnabled: true } });
      await conn.close();
      const mailed = newBrowser();
      const landing = await mailed.follow(adminStart(), { login: someone.sub, password: 'any' });
      expect(`${landing.url.origin}${landing.url.pathname}`).toBe(APP);
      const fragment = new URLSearchParams(landing.url.hash.slice(1));
      expect(fragment.get('factors')).toBe('email_code');
      // No session before the second step.
      expect(await adminRefresh(mailed)).toBe(401);
      const code = (await stack.events.waitFor('admin.otp.requested', (p) => p.adminId === admin.id)).payload.code as string;
      const verified = await mailed.fetch(`http://${API_HOST}/api/auth/verify-otp`, { method: 'POST', body: JSON.stringify({ challenge_token: fragment.get('challenge_token'), code }), headers: { 'content-type': 'application/json' } });
      expect(verified.status).toBe(200);
      const session = ((await verified.json()) as { data: { accessToken: string } }).data;
      expect(await adminRefresh(mailed)).toBe(200);

      // With an authenticator app of its own, that is what the step asks for.
      const started = await call(stack.url, 'POST', '/api/auth/admin/factors/totp', { headers: bearer(session.accessToken) });
      expect(started.status).toBe(200);
      const totp = new TOTP({ secret: Secret.fromBase32(started.body.data.secret) });
      expect((await call(stack.url, 'POST', '/api/auth/admin/factors/totp/confirm', { headers: bearer(session.accessToken), body: { code: totp.generate() } })).status).toBe(200);
      const withApp = newBrowser();
      const second = new URLSearchParams((await withApp.follow(adminStart(), { login: someone.sub, password: 'any' })).url.hash.slice(1));
      expect(second.get('factors')?.split(',')).toContain('totp');
      expect(second.get('factors')).not.toContain('email_code');
      expect(await adminRefresh(withApp)).toBe(401);
    });

    it('keeps the admin routes to those providers: any other is unknown there', async () => {
      const admin = await newAdmin();
      for (const provider of ['late', 'nobody']) {
        const res = await newBrowser().fetch(adminStart(provider));
        expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([404, 'identity_provider_unknown']);
        const link = await linkAdmin(admin.accessToken, 'unused', provider);
        expect(link.status).toBe(404);
      }
      // A user's flow does not complete at the admin's callback.
      const someone = await person();
      const browser = newBrowser();
      const userCallback = await callbackUrl(browser, someone.sub);
      const atAdmin = new URL(userCallback);
      atAdmin.pathname = atAdmin.pathname.replace('/user/', '/admin/');
      expect((await browser.follow(atAdmin)).url.searchParams.get('error')).toBe('identity_state_invalid');
      // The user's flow cookie is scoped to the user's callbacks: the admin's callback never gets it, and leaves the flow alone.
      expect(stack.logs.audit).toContainEqual(expect.objectContaining({ message: 'Admin identity sign-in failed', detail: 'flow cookie missing or of another browser' }));
      expect((await browser.follow(userCallback)).url.href).toBe(APP);
    });
  });
});

// The guide's try-it recipe for sign-in with a provider (docs/guide.md): `npm run dev:idp` starts a provider and
// prints the variables to start the stack with; with exactly those, a browser signs in as dev-user.
describe('dev-idp', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const deps = require('../../scripts/lib/dependencies.js');

  const API_HOST = 'api.test';
  let idp: ChildProcess;
  let stack: TestStack;
  let printed = '';

  beforeAll(async () => {
    const port = await deps.freePort();
    idp = spawn(process.execPath, [path.resolve(__dirname, '../../scripts/dev-idp.mjs')], { env: { ...process.env, IDP_PORT: String(port), GATEWAY_URL: `http://${API_HOST}` }, stdio: ['ignore', 'pipe', 'ignore'] });
    idp.stdout!.on('data', (chunk) => (printed += chunk));
    await until(() => printed.includes('npm start'), 15_000, 'the provider’s instructions');
    // The variables exactly as the recipe prints them.
    const line = /^ {2}(.*) npm start$/m.exec(printed)![1];
    const env = Object.fromEntries([...line.matchAll(/(\w+)=(?:'([^']*)'|(\S+))/g)].map((m) => [m[1], m[2] ?? m[3]]));
    stack = await startStack('devidp', { auth: { ...env, OIDC_APP_URLS: 'http://localhost:3000/' } });
    await until(async () => (await call(stack.url, 'GET', '/api/auth/identity-providers')).body.data.providers[0]?.available, 10_000, 'the provider discovered');
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await stopChild(idp);
  });

  it('signs dev-user in through the provider npm run dev:idp starts, with the variables it prints', async () => {
    const issuer = /provider at (\S+)/.exec(printed)![1];
    const browser = new RedirectBrowser({ [API_HOST]: stack.url, [new URL(issuer).host]: '' });
    const landing = await browser.follow(`http://${API_HOST}/api/auth/user/oidc/dev/start`, { login: 'dev-user', password: 'any' });
    expect(landing.url.href).toBe('http://localhost:3000/');
    const refreshed = await browser.fetch(`http://${API_HOST}/api/auth/user/refresh`, { method: 'POST' });
    expect(refreshed.status).toBe(200);
    const token = ((await refreshed.json()) as { data: { accessToken: string } }).data.accessToken;
    const me = await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${token}` } });
    expect(me.body.data.user).toMatchObject({ email: 'dev.user@example.com', name: 'Dev User' });
  });
});
