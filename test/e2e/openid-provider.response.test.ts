// This service as an OpenID provider, on the shared stack, with openid-client as the relying party
// (the library an app would use): discovery, the authorization code with PKCE through the hosted
// sign-in's interaction (approved here over HTTP as the page does: its access token, the provider's
// cookies), the product API called with the access token an app of the product gets, refresh with
// rotation, userinfo, introspection, revocation, logout and back-channel logout, and what RFC 9700
// says a provider must refuse.
import * as oidc from 'openid-client';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { receivedLogouts, refuseLogouts } from '@acct/test-harness/backchannel-receiver';
import { call } from '@acct/test-harness/http-client';
import { registerAndLogin } from '@acct/test-harness/factories';
import { until } from '@acct/test-harness/until';
import { scanKeys } from '@acct/test-harness/isolation';
import { sharedStack, type SharedStack } from '@acct/test-stack/shared';

let stack: SharedStack;
/** The issuer: the gateway's origin as browsers reach it (localhost, where passkeys work too). */
let issuer: string;
beforeAll(async () => {
  stack = await sharedStack();
  issuer = stack.url.replace('127.0.0.1', 'localhost');
});
afterAll(() => stack?.stop());

const PARTNER_SECRET = 'p'.repeat(40);
/** The token endpoint refusing the app's own authentication (a 401 with its challenge, RFC 6749 §5.2). */
const CLIENT_REFUSED = { status: 401, cause: [expect.objectContaining({ parameters: expect.objectContaining({ error: 'invalid_client' }) })] };
const DESKTOP_REDIRECT = 'http://127.0.0.1:53682/callback';
const PARTNER_REDIRECT = 'http://127.0.0.1:9/partner/callback';
/** A resource server of the shared stack's other than the product API. */
const REPORTS = 'https://reports.example.test';

/** The relying party of an app, from the provider's discovery document. */
async function relyingParty(app: 'desktop' | 'partner' | 'admin-panel'): Promise<oidc.Configuration> {
  const auth = app === 'partner' ? oidc.ClientSecretBasic(PARTNER_SECRET) : oidc.None();
  return oidc.discovery(new URL(issuer), app, undefined, auth, { execute: [oidc.allowInsecureRequests] });
}

/** A browser's cookies for the provider (names and values; the gateway passes only `oidc_*`). */
class Jar {
  private readonly cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const value = pair.slice(at + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(pair.slice(0, at));
      else this.cookies.set(pair.slice(0, at), value);
    }
  }
  async get(url: string): Promise<Response> {
    const res = await fetch(new URL(url, stack.url), { redirect: 'manual', headers: { cookie: this.header() } });
    this.keep(res);
    return res;
  }
  async post(url: string, body: unknown, accessToken?: string): Promise<Response> {
    const res = await fetch(new URL(url, stack.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: this.header(), 'content-type': 'application/json', ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}) },
      body: JSON.stringify(body),
    });
    this.keep(res);
    return res;
  }
}

interface Started {
  jar: Jar;
  uid: string;
  verifier: string;
  state: string;
  nonce: string;
}

/** An app sends the browser to the authorization endpoint; the provider sends it on to its interaction. */
async function startAuthorization(config: oidc.Configuration, redirectUri: string, extra: Record<string, string | string[]> = {}): Promise<Started> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const parameters = new URLSearchParams({
    redirect_uri: redirectUri,
    scope: 'openid profile email offline_access',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    prompt: 'consent',
  });
  // A parameter given more than once (`resource`, RFC 8707) is sent once per value.
  for (const [name, value] of Object.entries(extra)) {
    parameters.delete(name);
    for (const one of Array.isArray(value) ? value : [value]) parameters.append(name, one);
  }
  const url = oidc.buildAuthorizationUrl(config, parameters);
  const jar = new Jar();
  const toInteraction = await jar.get(url.href);
  expect(toInteraction.status).toBe(303);
  const interaction = toInteraction.headers.get('location') ?? '';
  const uid = /^\/oidc\/interaction\/([\w-]+)$/.exec(interaction)?.[1];
  expect(uid).toBeDefined();
  return { jar, uid: uid as string, verifier, state, nonce };
}

/** The page's part: approve with its access token, then follow the provider back to the app. */
async function approve(started: Started, accessToken: string, body: Record<string, unknown> = {}): Promise<URL> {
  const approved = await started.jar.post(`/oidc/interaction/${started.uid}/login`, body, accessToken);
  const answer = (await approved.json()) as { data?: { redirectTo: string }; code?: string };
  if (approved.status !== 200) throw new Error(`approve answered ${approved.status}: ${JSON.stringify(answer)}`);
  const back = await started.jar.get(answer.data?.redirectTo as string);
  expect(back.status).toBe(303);
  return new URL(back.headers.get('location') as string);
}

/** A person signs in to an app from start to tokens. */
async function signInToApp(app: 'desktop' | 'partner', kind: 'user' | 'admin' = 'user') {
  const person = await registerAndLogin(stack, kind);
  const config = await relyingParty(app);
  const redirectUri = app === 'desktop' ? DESKTOP_REDIRECT : PARTNER_REDIRECT;
  const started = await startAuthorization(config, redirectUri);
  const callback = await approve(started, person.accessToken, app === 'partner' ? { consent: true } : {});
  const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
  return { person, config, tokens, started, callback };
}

describe('openid-provider.response', () => {
  test('discovery names the endpoints under /oidc, code with PKCE S256 only, and the published key set', async () => {
    const res = await fetch(`${stack.url}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, any>;
    expect(doc.issuer).toBe(issuer);
    expect(doc.authorization_endpoint).toBe(`${issuer}/oidc/auth`);
    expect(doc.token_endpoint).toBe(`${issuer}/oidc/token`);
    expect(doc.jwks_uri).toBe(`${issuer}/.well-known/jwks.json`);
    expect(doc.response_types_supported).toEqual(['code']);
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
    expect(doc.grant_types_supported).not.toContain('password');
    expect(doc.grant_types_supported).not.toContain('implicit');
    expect(doc.id_token_signing_alg_values_supported).toEqual(['ES256']);
    expect(doc.authorization_response_iss_parameter_supported).toBe(true);
    expect(doc.device_authorization_endpoint).toBe(`${issuer}/oidc/device/auth`);
  });

  test('a desktop app signs in through the browser and calls the product API with its access token at once', async () => {
    const { person, tokens, callback, config } = await signInToApp('desktop');
    // Mix-up defence: the answer names its issuer.
    expect(callback.searchParams.get('iss')).toBe(issuer);
    const idClaims = tokens.claims();
    expect(idClaims?.sub).toBe(person.id);
    expect(idClaims?.iss).toBe(issuer);
    expect(tokens.refresh_token).toBeDefined();
    // The product's own access token: the gateway and desktop accept it.
    const sync = await call(stack.url, 'POST', '/api/desktop/sync', { headers: { authorization: `Bearer ${tokens.access_token}` }, body: { device: { id: 'laptop-1', platform: 'linux', appVersion: '1.10.0' }, changes: [] } });
    expect(sync.status).toBe(200);
    const me = await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    expect(me.body.data.user.id).toBe(person.id);
    // Its session lists with its app beside the password's.
    const sessions = await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: { authorization: `Bearer ${person.accessToken}` } });
    const appSessions = sessions.body.data.sessions.filter((s: any) => s.app?.id === 'desktop');
    expect(appSessions).toHaveLength(1);
    expect(appSessions[0].app.name).toBe('Desktop');
    // The grant, and its record of the app's session, last as long as a session can (30 days for a
    // user), not the week of a refresh token left unused: an app that keeps refreshing stays signed in.
    const grants = await scanKeys(stack.redis, `${stack.names.redisPrefix}app-grant:*`);
    const owners = await Promise.all(grants.map((key) => stack.redis.hget(key, 'accountId')));
    const mine = grants.filter((_, i) => owners[i] === person.id);
    expect(mine).toHaveLength(1);
    expect(await stack.redis.pttl(mine[0])).toBeGreaterThan(29 * 86_400_000);
    const grantId = mine[0].slice(`${stack.names.redisPrefix}app-grant:`.length);
    expect(await stack.redis.ttl(`${stack.names.redisPrefix}openid:Grant:${grantId}`)).toBeGreaterThan(29 * 86_400);
    // A refresh rotates; the token it replaced, used again, ends the grant and the session.
    const renewed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(renewed.refresh_token).not.toBe(tokens.refresh_token);
    const again = await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${renewed.access_token}` } });
    expect(again.status).toBe(200);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.refreshTokenGrant(config, renewed.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    const after = await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: { authorization: `Bearer ${person.accessToken}` } });
    expect(after.body.data.sessions.filter((s: any) => s.app?.id === 'desktop')).toHaveLength(0);
  });

  test('the owner ending the app session ends its refresh token and its access token', async () => {
    const { person, tokens, config } = await signInToApp('desktop');
    const sessions = await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: { authorization: `Bearer ${person.accessToken}` } });
    const appSession = sessions.body.data.sessions.find((s: any) => s.app?.id === 'desktop');
    const ended = await call(stack.url, 'DELETE', `/api/auth/user/sessions/${appSession.id}`, { headers: { authorization: `Bearer ${person.accessToken}` } });
    expect(ended.status).toBe(200);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    const me = await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(401);
  });

  test('an app that asked is told of the end of its session with a signed logout token, once, and again when it did not take it', async () => {
    const { person, tokens } = await signInToApp('desktop');
    const sid = tokens.claims()?.sid;
    expect(sid).toEqual(expect.any(String));
    // The app is down for the first attempt.
    await refuseLogouts(stack.backchannelLogoutUrl, person.id, 1);
    const sessions = await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: { authorization: `Bearer ${person.accessToken}` } });
    const appSession = sessions.body.data.sessions.find((s: any) => s.app?.id === 'desktop');
    const ended = await call(stack.url, 'DELETE', `/api/auth/user/sessions/${appSession.id}`, { headers: { authorization: `Bearer ${person.accessToken}` } });
    expect(ended.status).toBe(200);
    const received = await until(
      async () => {
        const got = await receivedLogouts(stack.backchannelLogoutUrl, person.id);
        return got.some((r) => !r.refused) && got;
      },
      15_000,
      () => `a logout token the app took ${JSON.stringify(stack.logs.service.filter((r) => /logout|OpenID|app/i.test(JSON.stringify(r))).slice(-8))}`,
    );
    expect(received.map((r) => r.refused)).toEqual([true, false]);
    // The same token shape both times, each signed with the published keys, for this app and this sign-in's `sid`.
    const keys = createRemoteJWKSet(new URL(`${stack.url}/.well-known/jwks.json`));
    for (const { logoutToken } of received) {
      const { payload, protectedHeader } = await jwtVerify(logoutToken, keys, { issuer, audience: 'desktop', typ: 'logout+jwt' });
      expect(protectedHeader.alg).toBe('ES256');
      expect(payload).toMatchObject({ sub: person.id, sid, events: { 'http://schemas.openid.net/event/backchannel-logout': {} } });
      expect(payload.nonce).toBeUndefined();
      expect(payload.jti).toEqual(expect.any(String));
    }
    // Every other session ending later tells it nothing more.
    await call(stack.url, 'POST', '/api/auth/user/sessions/sign-out-others', { headers: { authorization: `Bearer ${person.accessToken}` } });
    expect(await receivedLogouts(stack.backchannelLogoutUrl, person.id)).toHaveLength(2);
  });

  test('an end the app made itself tells it nothing; a sign-out everywhere tells each of its sessions', async () => {
    const first = await signInToApp('desktop');
    const person = first.person;
    // A second sign-in of the same person to the app (another device).
    const config = await relyingParty('desktop');
    const started = await startAuthorization(config, DESKTOP_REDIRECT);
    const second = await oidc.authorizationCodeGrant(config, await approve(started, person.accessToken), { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
    const third = await signInToApp('desktop');
    // The first revokes its own refresh token: its grant and session end, and it is not told.
    await oidc.tokenRevocation(first.config, first.tokens.refresh_token as string);
    await expect(oidc.refreshTokenGrant(first.config, first.tokens.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The person's other sessions end from the page: the second sign-in is told; another person's app is not.
    await call(stack.url, 'POST', '/api/auth/user/sessions/sign-out-others', { headers: { authorization: `Bearer ${person.accessToken}` } });
    const received = await until(async () => (await receivedLogouts(stack.backchannelLogoutUrl, person.id)).length > 0 && receivedLogouts(stack.backchannelLogoutUrl, person.id), 15_000, 'a logout token');
    expect(received.map((r) => decodeJwt(r.logoutToken).sid)).toEqual([second.claims()?.sid]);
    expect(await receivedLogouts(stack.backchannelLogoutUrl, third.person.id)).toEqual([]);
  });

  test('an app names another resource server (RFC 8707) and gets a token for it alone, which the product API refuses', async () => {
    const person = await registerAndLogin(stack);
    const config = await relyingParty('desktop');
    const started = await startAuthorization(config, DESKTOP_REDIRECT, { resource: REPORTS, scope: 'openid offline_access reports.read' });
    const callback = await approve(started, person.accessToken);
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce }, { resource: REPORTS });
    const keys = createRemoteJWKSet(new URL(`${stack.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(tokens.access_token, keys, { issuer, audience: REPORTS });
    expect(payload).toMatchObject({ sub: person.id, client_id: 'desktop', scope: 'reports.read' });
    // Not the product API's token.
    const refused = await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(refused.status).toBe(401);
    // A refresh gives another token for it; a resource the sign-in did not name is refused (RFC 8707
    // §2.2), the product API's too: an app that wants both names both.
    const again = await oidc.refreshTokenGrant(config, tokens.refresh_token as string, { resource: REPORTS });
    expect((await jwtVerify(again.access_token, keys, { issuer, audience: REPORTS })).payload.sub).toBe(person.id);
    await expect(oidc.refreshTokenGrant(config, again.refresh_token as string, { resource: `${issuer}/api` })).rejects.toMatchObject({ error: 'invalid_target' });
    // The library spends the refresh token before it reads the resource: that token is done with.
    await expect(oidc.refreshTokenGrant(config, again.refresh_token as string, { resource: REPORTS })).rejects.toMatchObject({ error: 'invalid_grant' });
    // Both named: one grant, a token for each.
    const both = await startAuthorization(config, DESKTOP_REDIRECT, { resource: [REPORTS, `${issuer}/api`], scope: 'openid offline_access reports.read' });
    const granted = await oidc.authorizationCodeGrant(config, await approve(both, person.accessToken), { pkceCodeVerifier: both.verifier, expectedState: both.state, expectedNonce: both.nonce }, { resource: `${issuer}/api` });
    const me = await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${granted.access_token}` } });
    expect(me.status).toBe(200);
    const reports = await oidc.refreshTokenGrant(config, granted.refresh_token as string, { resource: REPORTS });
    expect(decodeJwt(reports.access_token)).toMatchObject({ aud: REPORTS, scope: 'reports.read' });
    // Its scope asked without naming it gives nothing of it: the token is the product API's alone.
    const unnamed = await startAuthorization(config, DESKTOP_REDIRECT, { scope: 'openid reports.read' });
    const plain = await oidc.authorizationCodeGrant(config, await approve(unnamed, person.accessToken), { pkceCodeVerifier: unnamed.verifier, expectedState: unnamed.state, expectedNonce: unnamed.nonce });
    expect(String(decodeJwt(plain.access_token).scope ?? '')).not.toContain('reports');
    expect(decodeJwt(plain.access_token).aud).not.toBe(REPORTS);
    // An app the resource server does not list is refused at the authorization endpoint.
    const admin = await relyingParty('admin-panel');
    const elsewhere = oidc.buildAuthorizationUrl(admin, { redirect_uri: 'http://127.0.0.1:9/admin/callback', scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256', resource: REPORTS });
    const answer = await fetch(elsewhere, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(new URL(answer.headers.get('location') as string).searchParams.get('error')).toBe('invalid_target');
    // Another party's app asking for it: the consent page is told what of it, beside the OpenID scopes.
    const partner = await startAuthorization(await relyingParty('partner'), PARTNER_REDIRECT, { resource: REPORTS, scope: 'openid reports.read reports.write' });
    const about = await partner.jar.get(`/oidc/interaction/${partner.uid}/about`);
    expect(((await about.json()) as { data: unknown }).data).toMatchObject({ scopes: ['openid'], resources: [{ name: 'Reports', scopes: ['reports.read', 'reports.write'] }] });
  });

  test("another party's app asks for consent, gets userinfo, and its tokens introspect, revoke and log out", async () => {
    const person = await registerAndLogin(stack);
    const config = await relyingParty('partner');
    const started = await startAuthorization(config, PARTNER_REDIRECT);
    const refused = await started.jar.post(`/oidc/interaction/${started.uid}/login`, {}, person.accessToken);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { code: string }).code).toBe('consent_required');
    const callback = await approve(started, person.accessToken, { consent: true });
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
    const info = await oidc.fetchUserInfo(config, tokens.access_token, person.id);
    expect(info).toMatchObject({ sub: person.id, email: person.account.email, name: person.account.name });
    // Not the product API's token: the gateway does not take it.
    const me = await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(401);
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(true);
    // The access token revoked (RFC 7009): the provider ends every token of its grant, the refresh
    // token too (the RFC's "MAY"), and the app's session with them, before the answer.
    const refreshToken = tokens.refresh_token as string;
    await oidc.tokenRevocation(config, tokens.access_token);
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    const sessions = await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: { authorization: `Bearer ${person.accessToken}` } });
    expect(sessions.body.data.sessions.filter((s: { app: unknown }) => s.app)).toEqual([]);
    expect((await oidc.tokenIntrospection(config, refreshToken)).active).toBe(false);
    await expect(oidc.refreshTokenGrant(config, refreshToken)).rejects.toMatchObject({ error: 'invalid_grant' });
    // Logout goes back only to a registered address.
    const logout = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token as string, post_logout_redirect_uri: 'https://attacker.example/' });
    const res = await started.jar.get(logout.href);
    expect(res.status).toBe(400);
    // The request log names no ID token (its record is written as the answer ends).
    const logged = () => stack.logs.request.filter((r) => String(r.path).startsWith('/oidc/session/end'));
    await until(() => logged().length > 0);
    expect(logged().every((r) => String(r.path).includes('id_token_hint=[redacted]'))).toBe(true);
    expect(JSON.stringify(stack.logs.request)).not.toContain(tokens.id_token as string);
  });

  test('the person declining sends the app access_denied', async () => {
    await registerAndLogin(stack);
    const config = await relyingParty('partner');
    const started = await startAuthorization(config, PARTNER_REDIRECT);
    const declined = await started.jar.post(`/oidc/interaction/${started.uid}/abort`, {});
    const answer = (await declined.json()) as { data: { redirectTo: string } };
    const back = await started.jar.get(answer.data.redirectTo);
    const callback = new URL(back.headers.get('location') as string);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(started.state);
  });

  test('an admin session cannot approve a user app, nor a session of another browser the interaction', async () => {
    const admin = await registerAndLogin(stack, 'admin');
    const config = await relyingParty('desktop');
    const started = await startAuthorization(config, DESKTOP_REDIRECT);
    const asAdmin = await started.jar.post(`/oidc/interaction/${started.uid}/login`, {}, admin.accessToken);
    expect(asAdmin.status).toBe(403);
    // Without the browser's interaction cookie the request is not found.
    const user = await registerAndLogin(stack);
    const elsewhere = await new Jar().post(`/oidc/interaction/${started.uid}/login`, {}, user.accessToken);
    expect(elsewhere.status).toBe(404);
    expect(((await elsewhere.json()) as { code: string }).code).toBe('interaction_expired');
  });

  test('RFC 9700: exact redirect URIs, PKCE required and plain refused, a code used twice revokes what it gave', async () => {
    const config = await relyingParty('partner');
    const base = { scope: 'openid', state: oidc.randomState() };
    const challenge = await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier());
    const asked = async (params: Record<string, string>) => fetch(oidc.buildAuthorizationUrl(config, params), { redirect: 'manual' });
    // A prefix, a path below, another port of a web app's address: refused on the provider's own page, never redirected.
    for (const redirect of [`${PARTNER_REDIRECT}/more`, `${PARTNER_REDIRECT}?x=1`, 'http://127.0.0.1:10/partner/callback', 'https://attacker.example/cb']) {
      const res = await asked({ ...base, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
    // No PKCE, or plain: refused (sent back to the registered address with the error).
    for (const pkce of [{}, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }] as Array<Record<string, string>>) {
      const res = await asked({ ...base, redirect_uri: PARTNER_REDIRECT, ...pkce });
      expect(res.status).toBe(303);
      expect(new URL(res.headers.get('location') as string).searchParams.get('error')).toBe('invalid_request');
    }
    // A code used twice: the second is refused and the first's tokens are revoked.
    const { tokens, started, callback } = await signInToApp('partner');
    await expect(oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce })).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    // A wrong client secret: 401 with the challenge (WWW-Authenticate passes the gateway).
    const wrong = await oidc.discovery(new URL(issuer), 'partner', undefined, oidc.ClientSecretBasic('q'.repeat(40)), { execute: [oidc.allowInsecureRequests] });
    await expect(oidc.refreshTokenGrant(wrong, 'whatever')).rejects.toMatchObject({ status: 401, cause: [expect.objectContaining({ parameters: expect.objectContaining({ error: 'invalid_client' }) })] });
  });

  test('the device grant: a person who cancels at /device sends the CLI access_denied, and the code works no more', async () => {
    const config = await oidc.discovery(new URL(issuer), 'cli', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const device = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    expect(device.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    const jar = new Jar();
    const xsrfOf = async (res: Response) => /name="xsrf" value="([^"]+)"/.exec(await res.text())?.[1] as string;
    const form = (fields: Record<string, string>) =>
      fetch(new URL('/device', stack.url), { method: 'POST', redirect: 'manual', headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
    const asked = await jar.get('/device');
    expect(asked.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // The provider's own pages speak the browser's language, as the hosted pages do.
    const german = await (await fetch(new URL('/device', stack.url), { headers: { 'accept-language': 'de-DE,de;q=0.9' } })).text();
    expect(german).toContain('<html lang="de">');
    expect(german).toContain('<h1>Ein Gerät anmelden</h1>');
    const confirm = await form({ xsrf: await xsrfOf(asked), user_code: device.user_code });
    jar.keep(confirm);
    const cancelled = await form({ xsrf: await xsrfOf(confirm), user_code: device.user_code, abort: 'yes' });
    expect(await cancelled.text()).toContain('The sign-in was cancelled.');
    await expect(oidc.pollDeviceAuthorizationGrant(config, { ...device, interval: 1 })).rejects.toMatchObject({ error: 'access_denied' });
  });

  test('a native app may use any loopback port of its redirect URI, and its private-use scheme (RFC 8252)', async () => {
    const config = await relyingParty('desktop');
    const started = await startAuthorization(config, 'http://127.0.0.1:61001/callback');
    expect(started.uid).toBeDefined();
    // Its own scheme (reverse domain, RFC 8252 §7.1): the code comes back there, and is exchanged.
    const person = await registerAndLogin(stack);
    const scheme = await startAuthorization(config, 'com.example.desktop:/callback');
    const callback = await approve(scheme, person.accessToken);
    expect(`${callback.protocol}${callback.pathname}`).toBe('com.example.desktop:/callback');
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: scheme.verifier, expectedState: scheme.state, expectedNonce: scheme.nonce });
    expect(tokens.claims()?.sub).toBe(person.id);
    // Another scheme, or one an app of the web asks for, is refused on the provider's own page.
    for (const [app, redirect] of [['desktop', 'com.example.other:/callback'], ['partner', 'com.example.desktop:/callback']] as const) {
      const url = oidc.buildAuthorizationUrl(await relyingParty(app), { redirect_uri: redirect, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
      const answer = await fetch(url, { redirect: 'manual' });
      expect([app, answer.status]).toEqual([app, 400]);
    }
  });

  test('nothing but the provider answers under /oidc while the route is unknown, and refresh cookies never reach it', async () => {
    const res = await call(stack.url, 'GET', '/oidc/nothing-here');
    expect(res.status).toBe(404);
  });

  test('an app an admin registers signs people in with the secret shown once; a new secret overlaps the old; deleting it ends its sessions', async () => {
    const admin = await registerAndLogin(stack, 'admin');
    const asAdmin = { authorization: `Bearer ${admin.accessToken}` };
    const redirect = 'http://127.0.0.1:9/managed/callback';
    // Refused as the definition's rules say: http off the loopback.
    const refused = await call(stack.url, 'POST', '/api/admin/apps', { headers: asAdmin, body: { name: 'Plain', confidential: true, redirectUris: ['http://partner.example/cb'] } });
    expect([refused.status, refused.body.code]).toEqual([400, 'validation_failed']);
    const made = await call(stack.url, 'POST', '/api/admin/apps', { headers: asAdmin, body: { name: 'Managed Partner', confidential: true, redirectUris: [redirect] } });
    expect(made.status).toBe(201);
    const { app, secret } = made.body.data as { app: { id: string }; secret: string };
    const withSecret = (given: string) => oidc.discovery(new URL(issuer), app.id, undefined, oidc.ClientSecretBasic(given), { execute: [oidc.allowInsecureRequests] });
    // Read back, the secret is nowhere; the apps of configuration are listed beside it.
    const listed = await call(stack.url, 'GET', '/api/admin/apps', { headers: asAdmin });
    expect(listed.text).not.toContain(secret);
    expect(listed.body.data.apps.map((a: any) => [a.id, a.source])).toEqual(expect.arrayContaining([['desktop', 'configuration'], [app.id, 'console']]));

    const person = await registerAndLogin(stack);
    const config = await withSecret(secret);
    const started = await startAuthorization(config, redirect);
    const callback = await approve(started, person.accessToken, { consent: true });
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce });
    expect(tokens.claims()?.sub).toBe(person.id);
    await expect(oidc.refreshTokenGrant(await withSecret(`${secret.slice(0, -1)}x`), tokens.refresh_token as string)).rejects.toMatchObject(CLIENT_REFUSED);

    // A new secret with an hour's overlap: the old one still works, and the new one does.
    const rotated = await call(stack.url, 'POST', `/api/admin/apps/${app.id}/secret`, { headers: asAdmin, body: { overlapHours: 1 } });
    expect(rotated.status).toBe(200);
    const second = rotated.body.data.secret as string;
    const first = await oidc.refreshTokenGrant(await withSecret(secret), tokens.refresh_token as string);
    const next = await oidc.refreshTokenGrant(await withSecret(second), first.refresh_token as string);
    // With no overlap, every earlier secret stops at once.
    const third = (await call(stack.url, 'POST', `/api/admin/apps/${app.id}/secret`, { headers: asAdmin, body: { overlapHours: 0 } })).body.data.secret as string;
    await expect(oidc.refreshTokenGrant(await withSecret(second), next.refresh_token as string)).rejects.toMatchObject(CLIENT_REFUSED);
    const last = await oidc.refreshTokenGrant(await withSecret(third), next.refresh_token as string);
    // Another party's app: its access token is for userinfo (the product API is for the product's own apps).
    expect((await oidc.fetchUserInfo(await withSecret(third), last.access_token, person.id)).sub).toBe(person.id);

    // Deleting the app ends the session it holds: its access token is refused, and its secret signs in no more.
    const appSessions = async () => (await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: { authorization: `Bearer ${person.accessToken}` } })).body.data.sessions.filter((s: any) => s.app?.id === app.id);
    expect(await appSessions()).toHaveLength(1);
    expect((await call(stack.url, 'DELETE', `/api/admin/apps/${app.id}`, { headers: asAdmin })).status).toBe(200);
    expect(await appSessions()).toHaveLength(0);
    const userinfo = await fetch(`${stack.url}/oidc/me`, { headers: { authorization: `Bearer ${last.access_token}` } });
    expect(userinfo.status).toBe(401);
    await expect(oidc.refreshTokenGrant(await withSecret(third), last.refresh_token as string)).rejects.toMatchObject(CLIENT_REFUSED);
    expect((await call(stack.url, 'GET', `/api/admin/apps/${app.id}`, { headers: asAdmin })).body.code).toBe('app_not_found');
    // An app of configuration is changed there, not here.
    expect((await call(stack.url, 'DELETE', '/api/admin/apps/desktop', { headers: asAdmin })).body.code).toBe('app_declared');
    const activity = await call(stack.url, 'GET', `/api/admin/activity?kind=admin&accountId=${admin.id}`, { headers: asAdmin });
    expect(activity.body.data.activity.map((e: any) => e.type).filter((type: string) => type.startsWith('app_')).reverse()).toEqual(['app_registered', 'app_secret_rotated', 'app_secret_rotated', 'app_deleted']);
  });
});
