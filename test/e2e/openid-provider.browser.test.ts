// This service as an OpenID provider, in Chromium, on the shared stack: the desktop example of
// docs/guide.md (examples/desktop-sign-in.mjs) signs in through the hosted page, with a password and
// an authenticator app, and with a passkey, then syncs; a browser already signed in goes straight
// back to the next app, through a consent page for an app of another party; an app that asks for a
// fresh sign-in gets one; the consent page cannot be framed; and an admin manages an app in the
// /admin console (its secret shown once, a new one, a deletion).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import * as oidc from 'openid-client';
import { accessibilityProblems, addVirtualAuthenticator, closePages, enterText, fill, findChromium, launchChromium, press, watchedPage } from '@acct/test-harness/browser';
import { enableAuthenticatorApp, registerAndLogin } from '@acct/test-harness/factories';
import { call } from '@acct/test-harness/http-client';
import { sharedStack, type SharedStack } from '@acct/test-stack/shared';

// The page's own globals, in the functions evaluated in it.
declare const document: any;

const chromium = findChromium();
if ('missing' in chromium) throw new Error(`openid-provider.browser.test.ts needs Chromium: ${chromium.missing}`);

const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'desktop-sign-in.mjs');
const PARTNER_SECRET = 'p'.repeat(40);
const PARTNER_REDIRECT = 'http://127.0.0.1:9/partner/callback';

let stack: SharedStack;
let browser: Browser;
let issuer: string;
const pageErrors: string[] = [];
/** The example programs a test started: none outlives its test. */
const running: ChildProcess[] = [];

beforeAll(async () => {
  stack = await sharedStack();
  issuer = stack.url.replace('127.0.0.1', 'localhost');
  browser = await launchChromium((chromium as { path: string }).path);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

afterEach(async () => {
  for (const child of running.splice(0)) child.kill();
  try {
    expect(pageErrors.splice(0)).toEqual([]);
  } finally {
    await closePages(browser);
  }
});

/** A fresh browser profile (no cookies), whose script errors and CSP reports fail the test. */
function freshPage(): Promise<Page> {
  return watchedPage(browser, pageErrors, { viewport: false });
}

const textOf = (page: Page) => page.evaluate(() => document.body.textContent ?? '');
/** Waits for a text on the page; failing, says what the page showed instead. */
async function waitForText(page: Page, text: string): Promise<void> {
  try {
    await page.waitForFunction((t) => document.body.textContent?.includes(t), { timeout: 15_000 }, text);
  } catch (err) {
    throw new Error(`"${text}" never showed; ${page.url()} showed: ${(await textOf(page).catch(() => '?')).slice(0, 400)}`, { cause: err });
  }
}

/** The desktop example, started with no browser of its own: the test's Chromium opens its address. */
function startExample(): { child: ChildProcess; address: Promise<string>; done: Promise<{ code: number | null; out: string }> } {
  const child = spawn(process.execPath, [EXAMPLE, '--issuer', issuer, '--client-id', 'desktop', '--open', 'none', '--timeout', '60'], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let out = '';
  let found: (url: string) => void = () => undefined;
  const address = new Promise<string>((resolve) => (found = resolve));
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    const match = /^(http\S+\/oidc\/auth\?\S+)$/m.exec(out);
    if (match) found(match[1]);
  });
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const done = new Promise<{ code: number | null; out: string }>((resolve) => child.once('exit', (code) => resolve({ code, out })));
  return { child, address, done };
}

/** Signs in on the hosted page with the password. */
async function signInWithPassword(page: Page, account: { email: string; password: string }): Promise<void> {
  await page.waitForSelector('input[name=email]', { timeout: 15_000 });
  await enterText(page, account.email, 'input[name=email]');
  await enterText(page, account.password, 'input[name=password]');
  await page.click('button[type=submit]');
}

/** A new user, signed in to the pages in a fresh browser (on the account console). */
async function signedInBrowser() {
  const person = await registerAndLogin(stack);
  const page = await freshPage();
  await page.goto(`${issuer}/login?return_to=/account`);
  await signInWithPassword(page, person.account);
  await page.waitForSelector('.sessions li', { timeout: 15_000 });
  return { person, page };
}

/** An app of another party, and where its answer lands (captured: nothing listens at 127.0.0.1:9). */
async function partnerAuthorization(page: Page, extra: Record<string, string> = {}) {
  const config = await oidc.discovery(new URL(issuer), 'partner', undefined, oidc.ClientSecretBasic(PARTNER_SECRET), { execute: [oidc.allowInsecureRequests] });
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: PARTNER_REDIRECT,
    scope: 'openid email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  await page.setRequestInterception(true);
  let landed: (url: URL) => void = () => undefined;
  const callback = new Promise<URL>((resolve) => (landed = resolve));
  page.on('request', (request: HTTPRequest) => {
    if (request.url().startsWith(PARTNER_REDIRECT)) {
      landed(new URL(request.url()));
      void request.respond({ status: 200, contentType: 'text/html', body: '<!doctype html><title>partner</title><p>partner</p>' });
    } else void request.continue();
  });
  await page.goto(url.href);
  return { config, verifier, state, callback };
}

describe('openid-provider.browser', () => {
  test('the desktop example signs in through the hosted page with a password and an authenticator app, then syncs', async () => {
    const person = await registerAndLogin(stack);
    const code = await enableAuthenticatorApp(stack, person.accessToken);
    const example = startExample();
    const page = await freshPage();
    await page.goto(await example.address);
    await waitForText(page, 'Sign in to continue to Desktop');
    await signInWithPassword(page, person.account);
    await page.waitForSelector('input[name=code]', { timeout: 15_000 });
    // The next step's code: the current one went to confirming the app, and a code works once.
    await page.type('input[name=code]', code(30_000));
    await page.click('button[type=submit]');
    // Back at the example's loopback page.
    await waitForText(page, 'You are signed in. You can close this window');
    const { code: status, out } = await example.done;
    expect(out).toContain(`Signed in as ${person.id}`);
    expect(out).toMatch(/Synced: cursor \d+/);
    expect(status).toBe(0);
    // The account console lists the app among the apps with access, and takes its access back.
    await page.goto(`${issuer}/account`);
    await page.waitForSelector('[data-app=desktop]', { timeout: 15_000 });
    await page.click('[data-app=desktop] button');
    await waitForText(page, 'Desktop is signed out, and will ask you again');
    const sessions = await call(stack.url, 'GET', '/api/auth/user/sessions', { headers: { authorization: `Bearer ${person.accessToken}` } });
    expect(sessions.body.data.sessions.filter((s: { app: unknown }) => s.app)).toEqual([]);
  });

  test('the desktop example signs in with a passkey alone', async () => {
    const person = await registerAndLogin(stack);
    const page = await freshPage();
    await addVirtualAuthenticator(page);
    // A passkey added from the account console, in this browser.
    await page.goto(`${issuer}/login?return_to=/account`);
    await signInWithPassword(page, person.account);
    await waitForText(page, 'No passkey yet.');
    const nameId = await page.$$eval('label', (labels) => labels.find((l) => l.textContent === 'Name of the new passkey')?.getAttribute('for'));
    await page.type(`#${nameId}`, 'This laptop');
    await page.$$eval('button', (buttons) => buttons.find((b) => b.textContent === 'Add a passkey')?.click());
    await page.waitForFunction(() => document.querySelector('.passkeys li .session-name')?.textContent === 'This laptop', { timeout: 15_000 });
    // The pages' session forgotten by this browser (its refresh cookie gone), so the app's sign-in
    // asks. Not by the console's sign-out: that lands on /login, whose passkey prompt this
    // authenticator answers at once, racing the navigation below.
    await page.deleteCookie(...(await page.cookies(`${issuer}/api/auth/user/refresh`)));

    // Signed out, the page offers the passkey in the email field's suggestions (conditional mediation),
    // which this authenticator answers at once: no password is typed.
    const example = startExample();
    await page.goto(await example.address);
    await waitForText(page, 'You are signed in. You can close this window');
    const { code: status, out } = await example.done;
    expect(out).toContain(`Signed in as ${person.id}`);
    expect(status).toBe(0);
    // The sign-in the app rode on was the passkey's, then the app's own and its first token (newest first).
    const activity = await call(stack.url, 'GET', '/api/auth/user/activity', { headers: { authorization: `Bearer ${person.accessToken}` } });
    const types = activity.body.data.activity.map((e: { type: string; details?: string[] }) => `${e.type} ${(e.details ?? []).join(', ')}`);
    expect(types.slice(0, 3)).toEqual(['app_token_issued Desktop', 'app_signed_in Desktop', 'signed_in method: passkey']);
  });

  test('a browser already signed in goes to the next app without a password, through the consent of an app of another party, asked once until taken back', async () => {
    const { person, page } = await signedInBrowser();

    const { config, verifier, state, callback } = await partnerAuthorization(page);
    await waitForText(page, 'Allow Partner app?');
    const shown = await textOf(page);
    expect(shown).toContain('See your email address');
    expect(await page.$('input[name=password]')).toBeNull();
    await page.click('#app-allow');
    const landed = await callback;
    const tokens = await oidc.authorizationCodeGrant(config, landed, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()?.sub).toBe(person.id);

    // Allowed once: the next sign-in to it from this browser goes straight back, with no question.
    const again = await partnerAuthorization(await page.browserContext().newPage());
    const second = await oidc.authorizationCodeGrant(again.config, await again.callback, { pkceCodeVerifier: again.verifier, expectedState: again.state });
    expect(second.claims()?.sub).toBe(person.id);

    // /account lists it with what it was allowed; taking its access back asks again next time.
    const account = await page.browserContext().newPage();
    await account.goto(`${issuer}/account`);
    await account.waitForSelector('.apps li[data-app="partner"]', { timeout: 15_000 });
    expect(await account.$eval('.apps li[data-app="partner"]', (item: any) => item.textContent)).toContain('allowed: email');
    expect(await accessibilityProblems(account)).toEqual([]);
    await account.click('.apps li[data-app="partner"] button');
    await waitForText(account, 'Partner app is signed out, and will ask you again');
    await account.waitForFunction(() => document.querySelector('.apps li[data-app="partner"]') === null, { timeout: 15_000 });
    const third = await page.browserContext().newPage();
    await partnerAuthorization(third);
    await waitForText(third, 'Allow Partner app?');
  });

  test('an app that asks for a fresh sign-in (prompt=login) gets the password asked again', async () => {
    const { person, page } = await signedInBrowser();
    const { config, verifier, state, callback } = await partnerAuthorization(page, { prompt: 'login' });
    await waitForText(page, 'Sign in to continue to Partner app');
    await signInWithPassword(page, person.account);
    await waitForText(page, 'Allow Partner app?');
    await page.click('#app-allow');
    const tokens = await oidc.authorizationCodeGrant(config, await callback, { pkceCodeVerifier: verifier, expectedState: state });
    // The sign-in just made is the one the app is told of.
    expect(Math.abs((tokens.claims()?.auth_time as number) - Date.now() / 1000)).toBeLessThan(60);
  });

  test('a CLI signs in with the device grant: the person types its code at /device, in a browser already signed in', async () => {
    const { person, page } = await signedInBrowser();
    const config = await oidc.discovery(new URL(issuer), 'cli', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const device = await oidc.initiateDeviceAuthorization(config, { scope: 'openid offline_access' });
    expect(device.verification_uri).toBe(`${issuer}/device`);
    const polling = oidc.pollDeviceAuthorizationGrant(config, device);
    await page.goto(device.verification_uri);
    // A code mistyped is refused on the page, which asks again.
    await page.type('#user_code', 'BCDF-GHJK');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await waitForText(page, 'That code is not right');
    await page.type('#user_code', device.user_code);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await waitForText(page, 'Sign in to Command line?');
    await page.click('button[name=confirm]');
    await waitForText(page, 'Command line is signed in. You can close this page.');
    const tokens = await polling;
    // A CLI of the product: its access token is the product API's.
    const me = await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.body.data.user.id).toBe(person.id);
  });

  test('the consent page and the provider pages refuse to be framed', async () => {
    const page = await freshPage();
    const { callback } = await partnerAuthorization(page);
    void callback;
    const res = await fetch(page.url());
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const providerPage = await fetch(`${issuer}/oidc/auth?client_id=nobody`);
    expect(providerPage.status).toBe(400);
    expect(providerPage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  test('an admin registers an app in the console, copies its secret shown once, changes it, makes a new secret and deletes the app, each behind a question', async () => {
    const admin = await registerAndLogin(stack, 'admin');
    const page = await freshPage();
    await page.setViewport({ width: 360, height: 740 });
    await page.goto(`${issuer}/admin/login?return_to=%2Fadmin%23%2Fapps`);
    await signInWithPassword(page, admin.account);
    await waitForText(page, 'Register an app');
    // The apps of configuration are listed, with no button to change them.
    expect(await page.$eval('tr[data-app="desktop"]', (row: any) => [row.textContent, row.querySelectorAll('button').length])).toEqual([expect.stringContaining('from configuration'), 0]);
    expect(await accessibilityProblems(page)).toEqual([]);

    await fill(page, 'Name', 'Reports');
    await fill(page, 'Redirect URIs, one per line', 'https://reports.example.test/callback');
    await press(page, 'Register');
    await waitForText(page, 'Reports is registered.');
    const shown = () => page.$eval('#app-secret code.secret', (code: any) => [code.getAttribute('data-app'), code.textContent]) as Promise<[string, string]>;
    const [appId, secret] = await shown();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await accessibilityProblems(page)).toEqual([]);
    const asApp = (given: string) => oidc.discovery(new URL(issuer), appId, undefined, oidc.ClientSecretBasic(given), { execute: [oidc.allowInsecureRequests] });
    // The secret authenticates the app (an unknown token is inactive, not a refused client).
    expect(await oidc.tokenIntrospection(await asApp(secret), 'no such token')).toMatchObject({ active: false });
    // Shown once: a reload shows the app, not its secret.
    await page.reload();
    await page.waitForSelector(`tr[data-app="${appId}"]`, { timeout: 15_000 });
    expect(await page.$('#app-secret code.secret')).toBeNull();

    const inRow = async (text: string) => {
      const buttons = await page.$$(`tr[data-app="${appId}"] button`);
      for (const button of buttons) if ((await button.evaluate((b: any) => b.textContent)) === text) return button.click();
      throw new Error(`no button "${text}" in the row of ${appId}`);
    };
    // A change: where its browser comes back (matched exactly, so the whole list is replaced).
    await page.click(`tr[data-app="${appId}"] summary`);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.$eval(`#f-redirect-uris-${appId}`, (area: any) => (area.value = ''));
    await page.type(`#f-redirect-uris-${appId}`, 'https://reports.example.test/signed-in');
    await inRow('Save the changes');
    await waitForText(page, 'Reports is changed.');
    const changed = await call(stack.url, 'GET', `/api/admin/apps/${appId}`, { headers: { authorization: `Bearer ${admin.accessToken}` } });
    expect(changed.body.data.app.redirectUris).toEqual(['https://reports.example.test/signed-in']);

    // A new secret, after a question; the old one keeps working through its overlap.
    await inRow('New secret');
    await waitForText(page, 'Make a new secret for Reports?');
    await inRow('New secret for Reports');
    await waitForText(page, 'The secret of Reports. Copy it now');
    const [, second] = await shown();
    expect(second).not.toBe(secret);
    expect(await oidc.tokenIntrospection(await asApp(second), 'no such token')).toMatchObject({ active: false });
    expect(await oidc.tokenIntrospection(await asApp(secret), 'no such token')).toMatchObject({ active: false });

    // Deleting asks first; then the app's secrets authenticate nothing.
    await inRow('Delete');
    await waitForText(page, 'Delete Reports? It signs no one in any more');
    expect(await accessibilityProblems(page)).toEqual([]);
    await inRow('Delete Reports');
    await waitForText(page, 'Reports is deleted');
    expect(await page.$(`tr[data-app="${appId}"]`)).toBeNull();
    await expect(oidc.tokenIntrospection(await asApp(second), 'no such token')).rejects.toMatchObject({ status: 401 });
    expect((await call(stack.url, 'GET', `/api/admin/apps/${appId}`, { headers: { authorization: `Bearer ${admin.accessToken}` } })).status).toBe(404);
  });
});
