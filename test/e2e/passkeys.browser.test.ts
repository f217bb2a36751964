// Passkeys in a real browser: Chromium with the DevTools WebAuthn virtual authenticator, on a page of
// an origin listed in CORS_ORIGINS and WEBAUTHN_ORIGINS, using @simplewebauthn/browser as an app
// would: it adds a passkey, answers a login's second step with it, signs in with it alone, and the
// service refuses what a browser on another origin, a replay, or an answer to another ceremony gives.
// On the same stack and app origin, the README's client example, bundled as an app would bundle it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { addVirtualAuthenticator, findChromium, launchChromium, servePasskeyPage } from '@acct/test-harness/browser';
import { call } from '@acct/test-harness/http-client';
import { enableAuthenticatorApp, registerAndLogin } from '@acct/test-harness/factories';
import { startStack, type TestStack } from '@acct/test-stack/stack';
import { until } from '@acct/test-harness/until';

const chromium = findChromium();
if ('missing' in chromium) throw new Error(`passkeys.browser.test.ts needs Chromium: ${chromium.missing}`);

// One stack and one browser for the file: pages of an app origin (listed in CORS_ORIGINS and
// WEBAUTHN_ORIGINS, the same site as the API) and of another origin (CORS only).
let stack: TestStack;
let app: Awaited<ReturnType<typeof servePasskeyPage>>;
let otherApp: Awaited<ReturnType<typeof servePasskeyPage>>;
let browser: Browser;
let api: string;

beforeAll(async () => {
  app = await servePasskeyPage();
  otherApp = await servePasskeyPage();
  stack = await startStack('passkeys', {
    // The other page may call the API (CORS) but is no origin of the relying party.
    auth: { WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: app.origin, ADMIN_REGISTRATION_OPEN: 'true' },
    gateway: { CORS_ORIGINS: `${app.origin},${otherApp.origin}` },
  });
  api = stack.url.replace('127.0.0.1', 'localhost');
  browser = await launchChromium((chromium as { path: string }).path);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await app?.close();
  await otherApp?.close();
});

/** What the page answers: the status and body of each call it made. */
interface PageAnswer {
  status: number;
  body: any;
}

describe('passkeys in Chromium', () => {
  let page: Page;
  let authenticator: Awaited<ReturnType<typeof addVirtualAuthenticator>>;

  beforeAll(async () => {
    page = await browser.newPage();
    authenticator = await addVirtualAuthenticator(page);
    await page.goto(app.origin);
  });

  /** Calls the API from the page, as the app's fetch would. */
  const fetchFromPage = (path: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<PageAnswer> =>
    page.evaluate(
      async (url, method, body, token) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (token) headers.authorization = `Bearer ${token}`;
        const res = await fetch(url, { method, headers, credentials: 'include', body: body === undefined ? undefined : JSON.stringify(body) });
        return { status: res.status, body: await res.json() };
      },
      `${api}${path}`,
      init.method ?? 'POST',
      init.body as any,
      init.token,
    );

  /** Runs a WebAuthn ceremony in the page with @simplewebauthn/browser; answers what it resolved with. */
  const ceremony = (kind: 'startRegistration' | 'startAuthentication', optionsJSON: unknown): Promise<any> =>
    page.evaluate(
      (fn, options) => (globalThis as any).SimpleWebAuthnBrowser[fn]({ optionsJSON: options }),
      kind,
      optionsJSON as any,
    );

  async function userWithPasskey() {
    // One passkey in the authenticator at a time: a sign-in without a user name then has one to choose.
    await authenticator.cdp.send('WebAuthn.clearCredentials', { authenticatorId: authenticator.authenticatorId });
    const user = await registerAndLogin(stack, 'user');
    const options = await fetchFromPage('/api/auth/user/factors/passkeys/options', { token: user.accessToken });
    expect(options.status).toBe(200);
    expect(options.body.data.options.rp.id).toBe('localhost');
    const created = await ceremony('startRegistration', options.body.data.options);
    const added = await fetchFromPage('/api/auth/user/factors/passkeys', { token: user.accessToken, body: { name: 'Laptop', passkey: created } });
    return { user, added, created };
  }

  it('adds a passkey (the first factor comes with recovery codes) and lists it by name', async () => {
    const { user, added } = await userWithPasskey();
    expect(added.status).toBe(201);
    expect(added.body.data.passkey).toMatchObject({ name: 'Laptop' });
    expect(added.body.data.recoveryCodes).toHaveLength(10);
    await stack.events.waitFor('account.security.changed', (p) => p.accountId === user.id && p.change === 'passkey_added');
    const listed = await call(stack.url, 'GET', '/api/auth/user/factors', { headers: { authorization: `Bearer ${user.accessToken}` } });
    expect(listed.body.data.factors.passkeys).toEqual([expect.objectContaining({ id: added.body.data.passkey.id, name: 'Laptop', lastUsedAt: null })]);
    // An admin sees it by the name the user gave it, and nothing of the credential.
    const admin = await registerAndLogin(stack, 'admin');
    const seen = await call(stack.url, 'GET', `/api/admin/users/${user.id}/factors`, { headers: { authorization: `Bearer ${admin.accessToken}` } });
    expect(seen.body.data.factors).toEqual({
      items: [
        { method: 'passkey', label: 'Laptop', createdAt: expect.any(String), lastUsedAt: null, confirmed: true, role: 'way-in' },
        { method: 'recovery_code', label: 'Recovery codes', createdAt: expect.any(String), lastUsedAt: null, confirmed: true, role: 'backup', remaining: 10 },
      ],
      totp: false,
      passkeys: 1,
      passkeyList: [{ name: 'Laptop', createdAt: expect.any(String), lastUsedAt: null }],
      recoveryCodesLeft: 10,
    });
    expect(seen.text).not.toContain(added.body.data.passkey.id);
  });

  it('answers the second step of a password login with the passkey', async () => {
    const { user } = await userWithPasskey();
    const login = await fetchFromPage('/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } });
    expect(login.body.data).toMatchObject({ requires_2fa: true, factors: ['passkey', 'recovery_code'] });
    const options = await fetchFromPage('/api/auth/verify-otp/passkey-options', { body: { challenge_token: login.body.data.challenge_token } });
    expect(options.status).toBe(200);
    const answer = await ceremony('startAuthentication', options.body.data.options);
    const verified = await fetchFromPage('/api/auth/verify-otp', { body: { challenge_token: login.body.data.challenge_token, passkey: answer } });
    expect(verified.status).toBe(200);
    expect(verified.body.data.user.id).toBe(user.id);
  });

  it('signs in with the passkey alone, with the login push, and refuses the same answer again', async () => {
    const { user } = await userWithPasskey();
    const options = await fetchFromPage('/api/auth/user/passkey/options');
    const answer = await ceremony('startAuthentication', options.body.data.options);
    const signedIn = await fetchFromPage('/api/auth/user/passkey/login', { body: { passkey_token: options.body.data.passkey_token, passkey: answer } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.user.id).toBe(user.id);
    await stack.events.waitFor('user.login.succeeded', (p) => p.userId === user.id);

    const replay = await fetchFromPage('/api/auth/user/passkey/login', { body: { passkey_token: options.body.data.passkey_token, passkey: answer } });
    expect([replay.status, replay.body.code]).toEqual([401, 'passkey_rejected']);
    // The answer to one ceremony does not finish another.
    const other = await fetchFromPage('/api/auth/user/passkey/options');
    const crossed = await fetchFromPage('/api/auth/user/passkey/login', { body: { passkey_token: other.body.data.passkey_token, passkey: answer } });
    expect([crossed.status, crossed.body.code]).toEqual([401, 'passkey_rejected']);
    // A user's passkey signs no admin in.
    const admin = await fetchFromPage('/api/auth/admin/passkey/options');
    const asAdmin = await ceremony('startAuthentication', admin.body.data.options);
    const adminLogin = await fetchFromPage('/api/auth/admin/passkey/login', { body: { passkey_token: admin.body.data.passkey_token, passkey: asAdmin } });
    expect([adminLogin.status, adminLogin.body.code]).toEqual([401, 'passkey_rejected']);
  });

  it('refuses a passkey answer made on a page of another origin', async () => {
    await userWithPasskey();
    // Same authenticator, same RP id: only the origin the browser signed differs.
    await page.goto(otherApp.origin);
    try {
      const options = await fetchFromPage('/api/auth/user/passkey/options');
      const answer = await ceremony('startAuthentication', options.body.data.options);
      const res = await fetchFromPage('/api/auth/user/passkey/login', { body: { passkey_token: options.body.data.passkey_token, passkey: answer } });
      // Refused, and the answer and auth's log both name the page's origin: what to add to WEBAUTHN_ORIGINS, if it is the deployment's.
      expect([res.status, res.body.code]).toEqual([401, 'passkey_origin_refused']);
      expect(res.body.message).toContain(otherApp.origin);
      await until(() => stack.logs.service.some((r) => r.origin === otherApp.origin && String(r.message ?? r.msg).includes('WEBAUTHN_ORIGINS')), 2_000, 'the refused origin logged');
    } finally {
      await page.goto(app.origin);
    }
  });

  /** Signs in with whichever passkey the authenticator offers for the kind; answers the API's answer. */
  const passkeySignIn = async () => {
    const options = await fetchFromPage('/api/auth/user/passkey/options');
    const answer = await ceremony('startAuthentication', options.body.data.options);
    return fetchFromPage('/api/auth/user/passkey/login', { body: { passkey_token: options.body.data.passkey_token, passkey: answer } });
  };

  it('a reset by mailed link keeps a passkey: at the address’s first proof it signs in only as the second step until used as one, and from then on a reset leaves it be', async () => {
    const { user } = await userWithPasskey();
    // Its owner was told as it was added, by name.
    const added = await stack.events.waitFor('account.security.changed', (p) => p.accountId === user.id && p.change === 'passkey_added');
    expect(added.payload.details).toEqual(expect.arrayContaining(['Added: passkey "Laptop"']));
    const resetByMail = async (newPassword: string) => {
      const requestId = `reset-${user.id}-${Date.now()}`;
      await call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email: user.account.email }, headers: { 'x-request-id': requestId } });
      const mailed = await stack.events.waitFor('account.password_reset.requested', (p) => p.requestId === requestId);
      const reset = await call(stack.url, 'POST', '/api/auth/user/reset-password', { body: { token: new URL(mailed.payload.resetUrl).searchParams.get('token'), newPassword } });
      expect(reset.status).toBe(200);
    };
    // EMAIL_VERIFICATION is off here: this reset is the first time the address answers a link.
    await resetByMail('the mailbox chose this one');
    const notice = await stack.events.waitFor('account.security.changed', (p) => p.accountId === user.id && p.change === 'unproven_ways_in_removed');
    expect(notice.payload.details).toEqual([expect.stringMatching(/^Passkey "Laptop", added .*: no longer signs in by itself/)]);
    expect(await passkeySignIn()).toMatchObject({ status: 401, body: { code: 'passkey_rejected' } });
    // The mailbox gains nothing: the new password meets the passkey as its second step…
    const login = await fetchFromPage('/api/auth/user/login', { body: { email: user.account.email, password: 'the mailbox chose this one' } });
    expect(login.body.data).toMatchObject({ requires_2fa: true, factors: expect.arrayContaining(['passkey']) });
    const options = await fetchFromPage('/api/auth/verify-otp/passkey-options', { body: { challenge_token: login.body.data.challenge_token } });
    const answer = await ceremony('startAuthentication', options.body.data.options);
    expect((await fetchFromPage('/api/auth/verify-otp', { body: { challenge_token: login.body.data.challenge_token, passkey: answer } })).status).toBe(200);
    // …and whoever holds both keeps it: it signs in alone again, and a later reset leaves it be.
    expect((await passkeySignIn()).status).toBe(200);
    await resetByMail('and the owner changed it again');
    expect((await passkeySignIn()).status).toBe(200);
  });

  it('refuses a passkey sign-in without user verification (the authenticator only saw a touch)', async () => {
    const { user } = await userWithPasskey();
    const setVerified = (isUserVerified: boolean) => authenticator.cdp.send('WebAuthn.setUserVerified', { authenticatorId: authenticator.authenticatorId, isUserVerified });
    await setVerified(false);
    try {
      const options = await fetchFromPage('/api/auth/user/passkey/options');
      expect(options.body.data.options.userVerification).toBe('required');
      // A page that asks the authenticator for less than the service requires: its answer says no verification.
      const answer = await ceremony('startAuthentication', { ...options.body.data.options, userVerification: 'discouraged' });
      const res = await fetchFromPage('/api/auth/user/passkey/login', { body: { passkey_token: options.body.data.passkey_token, passkey: answer } });
      expect([res.status, res.body.code]).toEqual([401, 'passkey_rejected']);
    } finally {
      await setVerified(true);
    }
    expect((await passkeySignIn()).body.data.user.id).toBe(user.id);
  });

  it('a disabled user’s passkey signs in no more', async () => {
    const { user } = await userWithPasskey();
    const admin = await registerAndLogin(stack, 'admin');
    const disabled = await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { headers: { authorization: `Bearer ${admin.accessToken}` }, body: { disabled: true } });
    expect(disabled.status).toBe(200);
    expect(await passkeySignIn()).toMatchObject({ status: 403, body: { code: 'account_disabled' } });
  });

  it("another account's passkey does not answer a user's second step, and one answer is taken once", async () => {
    await authenticator.cdp.send('WebAuthn.clearCredentials', { authenticatorId: authenticator.authenticatorId });
    const first = await userWithPasskeyKeepingOthers();
    const second = await userWithPasskeyKeepingOthers();
    const login = await fetchFromPage('/api/auth/user/login', { body: { email: second.user.account.email, password: second.user.account.password } });
    const token = login.body.data.challenge_token as string;
    const options = await fetchFromPage('/api/auth/verify-otp/passkey-options', { body: { challenge_token: token } });
    // The browser signs this step's challenge with the first account's passkey.
    const foreign = await ceremony('startAuthentication', { ...options.body.data.options, allowCredentials: [{ id: first.added.body.data.passkey.id, type: 'public-key' }] });
    const refused = await fetchFromPage('/api/auth/verify-otp', { body: { challenge_token: token, passkey: foreign } });
    expect([refused.status, refused.body.code]).toEqual([401, 'invalid_otp']);

    const own = await ceremony('startAuthentication', options.body.data.options);
    expect((await fetchFromPage('/api/auth/verify-otp', { body: { challenge_token: token, passkey: own } })).status).toBe(200);
    const twice = await fetchFromPage('/api/auth/verify-otp', { body: { challenge_token: token, passkey: own } });
    expect([twice.status, twice.body.code]).toEqual([401, 'invalid_challenge']);
  });

  /** As userWithPasskey, but the authenticator keeps the passkeys it holds already. */
  async function userWithPasskeyKeepingOthers() {
    const user = await registerAndLogin(stack, 'user');
    const options = await fetchFromPage('/api/auth/user/factors/passkeys/options', { token: user.accessToken });
    const created = await ceremony('startRegistration', options.body.data.options);
    const added = await fetchFromPage('/api/auth/user/factors/passkeys', { token: user.accessToken, body: { name: 'Laptop', passkey: created } });
    expect(added.status).toBe(201);
    return { user, added };
  }

  it('removes a passkey after a recent proof, and a malformed answer is a 400', async () => {
    const { user, added } = await userWithPasskey();
    const malformed = await fetchFromPage('/api/auth/user/factors/passkeys', { token: user.accessToken, body: { passkey: 'nope' } });
    expect([malformed.status, malformed.body.code]).toEqual([400, 'validation_failed']);
    const removed = await fetchFromPage(`/api/auth/user/factors/passkeys/${added.body.data.passkey.id}`, { method: 'DELETE', token: user.accessToken });
    expect([removed.status, removed.body.data]).toEqual([200, { signedOut: 0 }]);
    const gone = await fetchFromPage(`/api/auth/user/factors/passkeys/${added.body.data.passkey.id}`, { method: 'DELETE', token: user.accessToken });
    expect([gone.status, gone.body.code]).toEqual([404, 'factor_not_found']);
  });
});

/** The README's client example, as it stands in the README. */
function readmeClient(): string {
  const readme = fs.readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
  const block = /```js\n(\/\/ The typed client:[\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no "The typed client" code block');
  return block[1];
}

/**
 * The example bundled as an app's build would bundle it: Vite, with `@acct/client` resolved as an
 * installed package (through node_modules, its built CommonJS), into one script the page runs.
 */
function bundled(example: string): string {
  const script = `
    import { build } from 'vite';
    const code = process.env.EXAMPLE;
    const out = await build({
      configFile: false, logLevel: 'silent', root: process.cwd(),
      resolve: { preserveSymlinks: true },
      plugins: [{ name: 'readme-example', enforce: 'pre', resolveId: (id) => (id.endsWith('readme-example') ? '\\0readme-example' : undefined), load: (id) => (id === '\\0readme-example' ? code : undefined) }],
      build: { write: false, minify: false, lib: { entry: 'readme-example', formats: ['iife'], name: 'readme' } },
    });
    process.stdout.write((Array.isArray(out) ? out[0] : out).output[0].code);`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: path.resolve(__dirname, '../..'), env: { ...process.env, EXAMPLE: example }, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
}

// The README's client example, bundled as an app would and run in Chromium on the app's page,
// against the stack. A login with a second step asks the app for the code (no refresh fired, no
// token lost) and signs in; the typed call then carries the access token, and a refresh goes through
// the cookie.
describe("the README's client example", () => {
  let page: Page;

  beforeAll(async () => {
    // A browser profile of its own: no cookie of the passkey tests.
    page = await (await browser.createBrowserContext()).newPage();
    await page.goto(app.origin);
    // The example as written, pointed at this stack.
    const example = readmeClient().replace("base: 'http://localhost:8080'", `base: ${JSON.stringify(api)}`);
    expect(example).toContain(api);
    await page.evaluate(bundled(example));
  }, 60_000);

  it('asks for the code of a login with a second step and signs in; the typed call and a refresh then work', async () => {
    const user = await registerAndLogin(stack);
    const code = await enableAuthenticatorApp(stack, user.accessToken);
    const refreshes = () => stack.logs.request.filter((r) => r.method === 'POST' && r.path === '/api/auth/user/refresh').length;
    const refreshesBefore = refreshes();

    // A wrong password is an error to show, not a reason to refresh or to ask for a code.
    const wrong = (await page.evaluate((email) => (globalThis as any).readme.signIn(email, 'not the password', () => Promise.reject(new Error('asked'))), user.account.email)) as any;
    expect(wrong.error).toMatchObject({ status: 401, code: 'invalid_credentials' });

    const signedIn = (await page.evaluate(
      async (email, password, otp) => {
        let asked: unknown;
        const answer = await (globalThis as any).readme.signIn(email, password, async (factors: unknown) => ((asked = factors), otp));
        return { ...answer, asked };
      },
      user.account.email,
      user.account.password,
      code(30_000),
    )) as any;
    expect(signedIn).toEqual({ account: expect.objectContaining({ email: user.account.email }), asked: ['totp', 'recovery_code'] });
    expect(refreshes()).toBe(refreshesBefore);

    const sessions = (await page.evaluate(() => (globalThis as any).readme.mySessions())) as any;
    expect(sessions.sessions).toEqual(expect.arrayContaining([expect.objectContaining({ current: true })]));
    expect(await page.evaluate(() => (globalThis as any).readme.auth.refresh())).toBe(true);
    expect(refreshes()).toBe(refreshesBefore + 1);
  });
});
