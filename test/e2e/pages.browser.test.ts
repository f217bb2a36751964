// The hosted pages in a real browser (Debian's Chromium), against the whole stack with the notifier
// writing its mail: register, prove the address from the mailed link, sign in by keyboard alone
// (with an app code or a recovery code as the second step), with a passkey alone or with an
// identity provider; the account console (sessions ended one by one and all at once, the password
// and the address changed, an authenticator app, a passkey and a provider added, the account
// deleted); a forgotten password reset from the mailed link; where a sign-in may return to; and on
// every page an accessibility check (axe-core) with no serious or critical finding, at 360 px wide,
// no script error and no Content-Security-Policy violation.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'puppeteer-core';
import { Secret, TOTP } from 'otpauth';
import { buildPages } from '@acct/test-harness/build';
import { accessibilityProblems, addVirtualAuthenticator, closePages, enterText, fill, findChromium, launchChromium, press, watchedPage } from '@acct/test-harness/browser';
import { buildAccount, enableAuthenticatorApp, registerAndLogin } from '@acct/test-harness/factories';
import { call } from '@acct/test-harness/http-client';
import { deleteRedisPrefix, scanKeys } from '@acct/test-harness/isolation';
import { startIdentityProvider, type TestIdentityProvider } from '@acct/test-harness/oidc-provider';
import { decodeQuotedPrintable } from '@acct/test-harness/smtp';
import { until } from '@acct/test-harness/until';
import { freePort } from '@acct/test-harness/ports';
import { startStack, type TestStack } from '@acct/test-stack/stack';

// The page's own names, inside the functions run in the browser (this program is typed for Node).
declare const document: any;
declare const location: any;
declare const getComputedStyle: any;
type HTMLInputElement = { name: string; value: string };

const chromium = findChromium();
if ('missing' in chromium) throw new Error(`pages.browser.test.ts needs Chromium: ${chromium.missing}`);

const pagesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-pages-'));
/** The deployment's brand: a logo and a rule of its own (BRAND_DIR), beside its name and colour. */
const brandDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-brand-'));
fs.writeFileSync(path.join(brandDir, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10" fill="#6b2fb3"/></svg>');
fs.writeFileSync(path.join(brandDir, 'brand.css'), 'header { border-bottom-width: 3px; }\n');

let stack: TestStack;
let idp: TestIdentityProvider;
let browser: Browser;
let origin: string;
let app: { origin: string; close(): Promise<void> };
let firstRun: { heading: string | undefined; problems: string[]; done: string | undefined; afterwards: string | undefined; methods: unknown };
const pageErrors: string[] = [];

beforeAll(async () => {
  buildPages(pagesDir);
  app = await serveApp();
  // localhost: a secure context, as the API's public https origin is, so the Secure cookie is kept;
  // the port is chosen first, for passkeys to be bound to this origin.
  const port = await freePort();
  origin = `http://localhost:${port}`;
  // The project's own OpenID provider, registered with this origin's callback.
  idp = await startIdentityProvider({ clients: [{ client_id: 'pages', client_secret: 'pages-secret', redirect_uris: [`${origin}/api/auth/user/oidc/corp/callback`] }] });
  stack = await startStack('pages', {
    notifier: true,
    auth: {
      ADMIN_REGISTRATION_OPEN: 'true',
      EMAIL_VERIFICATION: 'soft',
      // New passwords screened against the breached list, as in production: the sign-up form shows that rule.
      BREACHED_PASSWORD_CHECK: 'true',
      // Signing in with the address alone, for users (admins keep the default: off).
      EMAIL_SIGN_IN: 'true',
      // No WEBAUTHN_ORIGINS: the gateway's own origin is allowed on whatever port it was given (here a random one).
      WEBAUTHN_RP_ID: 'localhost',
      OIDC_PROVIDERS: JSON.stringify([{ id: 'corp', name: 'Corp SSO', issuer: idp.issuer, clientId: 'pages' }]),
      OIDC_CLIENT_SECRETS: JSON.stringify({ corp: 'pages-secret' }),
      // The API's origin: the hosted pages are where a provider's sign-in may come back to.
      OIDC_REDIRECT_URL_BASE: origin,
    },
    // Branded, as a deployment would be: every page test below meets the brand (axe checks its colour too).
    gateway: { PORT: String(port), PAGES_DIR: pagesDir, CORS_ORIGINS: app.origin, SUPPORT_CONTACT: 'help@example.com', PRODUCT_NAME: 'Northwind', BRAND_COLOR: '#6b2fb3', BRAND_DIR: brandDir },
  });
  browser = await launchChromium((chromium as { path: string }).path);
  // The first-run page exists only while no admin does, so it is met before any test makes one.
  firstRun = await createTheFirstAdmin();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await idp?.stop();
  await app?.close();
  fs.rmSync(pagesDir, { recursive: true, force: true });
  fs.rmSync(brandDir, { recursive: true, force: true });
});

afterEach(async () => {
  try {
    expect(pageErrors).toEqual([]);
  } finally {
    await closePages(browser);
  }
});

/** A fresh browser profile (no cookies) with a phone-sized window. */
async function freshPage(): Promise<Page> {
  // A script error or a policy violation on a page fails the test that met it.
  return watchedPage(browser, pageErrors);
}

const mails = () => fs.readdirSync(stack.notifier!.mailDir).map((f) => decodeQuotedPrintable(fs.readFileSync(path.join(stack.notifier!.mailDir, f), 'utf8')));
function linkMailedTo(address: string, pattern: RegExp): Promise<string> {
  return until(() => mails().filter((m) => m.includes(`To: ${address}`)).map((m) => pattern.exec(m)?.[0]).find((link) => link !== undefined), 10_000, `a link mailed to ${address}`);
}
/** The mailed link, opened on this stack's origin (the link names the default page origin, localhost:8080). */
const onStack = (link: string) => `${origin}${new URL(link).pathname}${new URL(link).search}`;

async function waitForHeading(page: Page, text: string): Promise<void> {
  await page.waitForFunction((t) => document.querySelector('h1')?.textContent === t, { timeout: 10_000 }, text);
}
/** Signs in on the sign-in page as an account with no passkey yet, and adds one named `name` from the console (the page has a virtual authenticator). */
async function addPasskeyFromConsole(page: Page, account: { email: string; password: string }, name: string): Promise<void> {
  await page.goto(`${origin}/login`);
  await waitForHeading(page, 'Sign in');
  await signInByKeyboard(page, account.email, account.password);
  await page.waitForFunction(() => document.body.textContent?.includes('No passkey yet.'), { timeout: 10_000 });
  await fill(page, 'Name of the new passkey', name);
  await press(page, 'Add a passkey');
  await page.waitForFunction((n) => document.querySelector('.passkeys li .session-name')?.textContent === n, { timeout: 10_000 }, name);
}

/** A new browser signed in through the sign-in page, on the account console with its sessions shown. */
async function consoleOf(account: { email: string; password: string }): Promise<Page> {
  const page = await freshPage();
  await page.goto(`${origin}/login?return_to=/account`);
  await waitForHeading(page, 'Sign in');
  await signInByKeyboard(page, account.email, account.password);
  await page.waitForSelector('.sessions li');
  return page;
}

/**
 * Signs in on the page without a pointer: Tab to each field, enter its text (enterText: one input,
 * not a key a character), Enter. The first journey below also types a password key by key.
 */
async function signInByKeyboard(page: Page, email: string, password: string): Promise<void> {
  await page.keyboard.press('Tab');
  await enterText(page, email);
  await page.keyboard.press('Tab');
  await enterText(page, password);
  await page.keyboard.press('Enter');
}

/** A user with an authenticator app, on a fresh page at the second step after the password. */
async function appUserAtSecondStep() {
  const user = await registerAndLogin(stack);
  const code = await enableAuthenticatorApp(stack, user.accessToken);
  const page = await freshPage();
  await page.goto(`${origin}/login`);
  await waitForHeading(page, 'Sign in');
  await signInByKeyboard(page, user.account.email, user.account.password);
  await waitForHeading(page, 'Confirm it is you');
  return { user, code, page };
}

describe('hosted sign-in and the account console', () => {
  it('registers, proves the address from the mailed link, signs in by keyboard and shows the account; each page passes the accessibility check', async () => {
    const page = await freshPage();
    const account = buildAccount();
    await page.goto(`${origin}/register`);
    await waitForHeading(page, 'Create your account');
    expect(await accessibilityProblems(page)).toEqual([]);
    await fill(page, 'Name', account.name);
    await fill(page, 'Email', account.email);
    await fill(page, 'Password', account.password);
    await press(page, 'Create account');
    await page.waitForFunction(() => document.body.textContent?.includes('We sent a link'), { timeout: 10_000 });

    // The mailed link opens the hosted page (the default EMAIL_LINK_URL_BASE), used by a click.
    const link = await linkMailedTo(account.email, /https?:\/\/\S+\?action=verify&token=[A-Za-z0-9_-]{43}/);
    expect(new URL(link).origin + new URL(link).pathname).toBe('http://localhost:8080/account/email');
    await page.goto(onStack(link));
    await waitForHeading(page, 'Prove your email address');
    expect(page.url()).toBe(`${origin}/account/email`);
    expect(await accessibilityProblems(page)).toEqual([]);
    await press(page, 'Confirm my address');
    await page.waitForFunction(() => document.body.textContent?.includes('Your email address is confirmed.'), { timeout: 10_000 });

    await page.goto(`${origin}/login`);
    await waitForHeading(page, 'Sign in');
    expect(await accessibilityProblems(page)).toEqual([]);
    await signInByKeyboard(page, account.email, 'not the password');
    // The summary takes the focus; Enter on its link goes to the field to correct.
    await page.waitForFunction(() => document.querySelector('.error-summary li')?.textContent === 'The email or password is wrong.', { timeout: 10_000 });
    await page.$eval('input[name=password]', (i) => ((i as HTMLInputElement).value = ''));
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.keyboard.type(account.password);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.pathname === '/account' && document.querySelector('h1')?.textContent === 'Your account' && document.querySelector('dl'), { timeout: 10_000 });
    const profile = await page.$eval('dl', (d) => d.textContent ?? '');
    expect(await page.$eval('input[name=name]', (i) => (i as HTMLInputElement).value)).toBe(account.name);
    expect(profile).toContain(account.email);
    expect(profile).not.toContain('Not verified');
    await page.waitForSelector('.sessions li');
    expect(await page.$$eval('.sessions li .session-name', (s) => s.map((x) => x.textContent))).toEqual(['This device']);
    // The recent activity: this sign-in over the wrong password before it, and the address proven.
    await page.waitForSelector('.activity li[data-type]');
    const activity = await page.$$eval('.activity li[data-type]', (items) => items.map((i) => i.getAttribute('data-type')));
    expect(activity.slice(0, 3)).toEqual(['signed_in', 'sign_in_failed', 'email_verified']);
    expect(await page.$eval('.activity li[data-type=signed_in]', (i) => i.textContent ?? '')).toMatch(/Signed in.*Chrome on Linux.*method: password/);
    expect(await accessibilityProblems(page)).toEqual([]);
    // Nothing fits only a wide screen: the page is no wider than the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  });

  it('asks for the app code as the second step, and signs in with it', async () => {
    const { page, code } = await appUserAtSecondStep();
    expect(await accessibilityProblems(page)).toEqual([]);
    // Focus is on the code field: type it and press Enter.
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('code');
    await page.keyboard.type('000000');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.error-summary li')?.textContent === 'That code is wrong or already used.', { timeout: 10_000 });
    expect(await page.$eval('input[name=code]', (i) => i.getAttribute('aria-invalid'))).toBe('true');
    await page.$eval('input[name=code]', (i) => ((i as HTMLInputElement).value = ''));
    await page.click('.error-summary a');
    await page.keyboard.type(code(30_000));
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.pathname === '/account', { timeout: 10_000 });
  });

  it('trusts this browser at the second step: the password alone signs in from it, the console lists it, and once forgotten the step is asked again', async () => {
    const { page, code, user } = await appUserAtSecondStep();
    await page.waitForFunction(() => !document.querySelector('#trust-browser')?.closest('[hidden]'), { timeout: 10_000 });
    expect(await page.$eval('label[for=trust-browser]', (l) => l.textContent)).toBe('Trust this browser for 30 days: your password alone signs you in here');
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.click('#trust-browser');
    await page.focus('input[name=code]');
    await page.keyboard.type(code(30_000));
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.pathname === '/account', { timeout: 10_000 });
    await page.waitForSelector('.trusted-browsers li[data-browser]');
    expect(await page.$eval('.trusted-browsers li[data-browser] .session-name', (e) => e.textContent)).toContain('Chrome on Linux');
    expect(await accessibilityProblems(page)).toEqual([]);

    // Signed out and in again with the password: no second step from this browser.
    await page.click('#sign-out');
    await waitForHeading(page, 'Sign in');
    await signInByKeyboard(page, user.account.email, user.account.password);
    await page.waitForFunction(() => location.pathname === '/account', { timeout: 10_000 });
    await page.waitForSelector('.activity li[data-type=signed_in]');
    expect(await page.$eval('.activity li[data-type=signed_in]', (i) => i.textContent ?? '')).toContain('second step: a trusted browser');

    // Another browser is asked, as before.
    const other = await freshPage();
    await other.goto(`${origin}/login`);
    await waitForHeading(other, 'Sign in');
    await signInByKeyboard(other, user.account.email, user.account.password);
    await waitForHeading(other, 'Confirm it is you');

    // Forgotten from the console: the next sign-in here asks again.
    await page.waitForSelector('.trusted-browsers li[data-browser]');
    await press(page, 'Forget');
    await page.waitForFunction(() => document.querySelector('.trusted-browsers li')?.textContent === 'None.', { timeout: 10_000 });
    await page.click('#sign-out');
    await waitForHeading(page, 'Sign in');
    await signInByKeyboard(page, user.account.email, user.account.password);
    await waitForHeading(page, 'Confirm it is you');
  });

  it('asks from the second step for the factors to go, confirms from the mailed link after a wait, and the console shows and cancels it', async () => {
    const user = await registerAndLogin(stack);
    const code = await enableAuthenticatorApp(stack, user.accessToken);
    // The owner's owner, signed in with the app, open elsewhere.
    const owner = await freshPage();
    await owner.goto(`${origin}/login?return_to=/account`);
    await waitForHeading(owner, 'Sign in');
    await signInByKeyboard(owner, user.account.email, user.account.password);
    await waitForHeading(owner, 'Confirm it is you');
    await owner.keyboard.type(code(30_000));
    await owner.keyboard.press('Enter');
    await owner.waitForFunction(() => location.pathname === '/account', { timeout: 10_000 });

    // Someone with the password and without the app asks from the second step.
    const page = await freshPage();
    await page.goto(`${origin}/login`);
    await waitForHeading(page, 'Sign in');
    await signInByKeyboard(page, user.account.email, user.account.password);
    await waitForHeading(page, 'Confirm it is you');
    await press(page, 'I cannot use any of these');
    await page.waitForFunction(() => document.querySelector('[role=status]')?.textContent?.startsWith('We emailed your address a link.'), { timeout: 10_000 });
    const link = await linkMailedTo(user.account.email, /https?:\/\/\S+\?action=recover&token=[A-Za-z0-9_-]{43}/);
    await page.goto(onStack(link));
    await waitForHeading(page, 'Remove your second factors');
    expect(await accessibilityProblems(page)).toEqual([]);
    await press(page, 'Remove them after the waiting period');
    await page.waitForFunction(() => document.querySelector('[role=status]')?.textContent?.startsWith('Done. Your second factors will be removed'), { timeout: 10_000 });

    // The owner's console says so, and stops it.
    await owner.reload();
    await owner.waitForFunction(() => document.querySelector('.notice')?.textContent?.includes('They go after'), { timeout: 10_000 });
    expect(await accessibilityProblems(owner)).toEqual([]);
    await press(owner, 'Cancel the removal');
    await owner.waitForFunction(() => document.querySelector('.notice') === null, { timeout: 10_000 });
    const factors = await call(stack.url, 'GET', '/api/auth/user/factors', { headers: { authorization: `Bearer ${user.accessToken}` } });
    expect(factors.body.data.recovery).toBeNull();
  });

  it('shows and hides what was typed in every password field, and a sign-in sends it hidden again', async () => {
    const page = await freshPage();
    await page.goto(`${origin}/register`);
    await waitForHeading(page, 'Create your account');
    // One button beside each password field, naming what a press does.
    const reveals = () => page.$$eval('input[type=password], input[type=text]', (inputs) => inputs.filter((i) => i.closest('.with-reveal')).map((i) => [i.getAttribute('type'), i.nextElementSibling?.textContent, i.nextElementSibling?.getAttribute('aria-label')]));
    expect(await reveals()).toEqual([['password', 'Show', 'Show password']]);

    await page.goto(`${origin}/login`);
    await waitForHeading(page, 'Sign in');
    await fill(page, 'Password', 'typed in the dark');
    await press(page, 'Show');
    expect(await reveals()).toEqual([['text', 'Hide', 'Hide password']]);
    expect(await page.$eval('.with-reveal input', (i) => (i as HTMLInputElement).value)).toBe('typed in the dark');
    expect(await accessibilityProblems(page)).toEqual([]);
    await press(page, 'Hide');
    expect(await reveals()).toEqual([['password', 'Show', 'Show password']]);

    // Shown, then sent: the field is a password field again when the form goes.
    await press(page, 'Show');
    await fill(page, 'Email', 'nobody@example.com');
    await press(page, 'Sign in');
    await page.waitForSelector('.error-summary, .status.error');
    expect(await reveals()).toEqual([['password', 'Show', 'Show password']]);
  });

  it('shows a new password\'s rules as they are met while it is typed: its length here, the breached list by the service', async () => {
    const page = await freshPage();
    await page.goto(`${origin}/register`);
    await waitForHeading(page, 'Create your account');
    // The rules a person sees: the breached list's once the service says it checks one.
    const rules = () => page.$$eval('.password-rules li', (items) => items.filter((i) => !i.hidden).map((i) => [i.className, i.textContent]));
    const checks = () => stack.logs.request.filter((r) => r.path === '/api/auth/password-check').length;
    const before = checks();
    const retype = async (value: string) => {
      await page.$eval('input[name=password]', (i) => void ((i as HTMLInputElement).value = ''));
      await page.type('input[name=password]', value);
    };
    expect(await rules()).toEqual([['', '8 to 128 characters']]);
    // When each key reached the field, by the page's clock: a key followed by a pause of the page's
    // 350 ms (or by nothing) is one the service may be asked about; a loaded machine types slower
    // and pauses more, so the bound below is counted from the typing, not fixed.
    await page.$eval('input[name=password]', (i) => {
      const keys: Array<[number, number]> = [];
      (globalThis as any).__keys = keys;
      i.addEventListener('input', () => keys.push([performance.now(), [...(i as HTMLInputElement).value].length]));
    });
    const pausedKeys = () =>
      page.evaluate(() => {
        const keys = (globalThis as any).__keys as Array<[number, number]>;
        return keys.filter(([at, size], n) => size >= 8 && (n === keys.length - 1 || keys[n + 1][0] - at >= 350 || keys[n + 1][1] < size)).length;
      });
    await retype('short');
    expect(await rules()).toEqual([['unmet', '8 to 128 characters (not met yet)']]);
    // Long enough, and on the list: the service says so once the typing pauses.
    await retype('password');
    await page.waitForFunction(() => document.querySelectorAll('.password-rules li')[1]?.className === 'unmet', { timeout: 10_000 });
    expect(await rules()).toEqual([
      ['met', '8 to 128 characters (met)'],
      ['unmet', 'Not a commonly used password (not met yet)'],
    ]);
    expect(await accessibilityProblems(page)).toEqual([]);
    await retype('orbit lantern pebble');
    await page.waitForFunction(() => [...document.querySelectorAll('.password-rules li')].every((i) => i.className === 'met'), { timeout: 10_000 });
    // Read with the field by assistive technology, and asked once the typing paused, not per key (14 keys were typed at 8 or more).
    expect(await page.$eval('input[name=password]', (i) => i.getAttribute('aria-describedby'))).toMatch(/-rules$/);
    // At most one question per pause (one more for a gap that straddles the 350 ms by the two clocks),
    // and no more than 6 where the typing barely paused (a page asking per key asks 14 times).
    const paused = await pausedKeys();
    expect(checks() - before).toBeLessThanOrEqual(Math.max(6, paused + 1));
    expect(checks() - before).toBeGreaterThanOrEqual(2);
  });

  it('shows errors where the eye is: in each field, in a summary that heads the form, and in the title; a disabled account names support', async () => {
    const user = await registerAndLogin(stack);
    const page = await freshPage();
    await page.goto(`${origin}/login`);
    await waitForHeading(page, 'Sign in');
    const summary = () => page.$$eval('.error-summary li a', (links) => links.map((a) => [a.textContent, a.getAttribute('href')]));
    const invalid = () => page.$$eval('input[aria-invalid=true]', (inputs) => inputs.map((i) => (i as HTMLInputElement).name));

    // Nothing typed: both fields, each in its own slot, the summary focused, the title marked.
    await press(page, 'Sign in');
    await page.waitForSelector('.error-summary');
    expect(await invalid()).toEqual(['email', 'password']);
    expect((await summary()).map(([text]) => text)).toEqual(['Enter email', 'Enter password']);
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('error-summary');
    expect(await page.title()).toMatch(/^Error: Sign in/);
    expect(await accessibilityProblems(page)).toEqual([]);

    // A wrong password: on the password field, and the summary's link takes the focus there.
    await fill(page, 'Email', user.account.email);
    await fill(page, 'Password', 'not the password');
    await press(page, 'Sign in');
    await page.waitForFunction(() => document.querySelector('.error-summary li')?.textContent === 'The email or password is wrong.', { timeout: 10_000 });
    expect(await invalid()).toEqual(['password']);
    await page.click('.error-summary a');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('password');

    // Right: the errors and the title's mark go.
    await page.$eval('input[name=password]', (i) => ((i as HTMLInputElement).value = ''));
    await fill(page, 'Password', user.account.password);
    await press(page, 'Sign in');
    await page.waitForFunction(() => location.pathname === '/account', { timeout: 10_000 });
    expect(await page.title()).not.toMatch(/^Error/);

    // A disabled account is told whom to ask (SUPPORT_CONTACT).
    const admin = await registerAndLogin(stack, 'admin');
    await call(stack.url, 'PUT', `/api/admin/users/${user.id}`, { headers: { authorization: `Bearer ${admin.accessToken}` }, body: { disabled: true } });
    const disabled = await freshPage();
    await disabled.goto(`${origin}/login`);
    await waitForHeading(disabled, 'Sign in');
    await signInByKeyboard(disabled, user.account.email, user.account.password);
    await disabled.waitForFunction(() => document.querySelector('[role=alert]')?.textContent === 'This account is disabled. Contact help@example.com.', { timeout: 10_000 });
  });

  it('takes an account console whose session ended elsewhere back to sign-in, tells a person back from an undo that a reset link waits, and never scrolls sideways at 360 px', async () => {
    const account = buildAccount({ email: `a.rather.long.address.that.does.not.fit.${Date.now()}@a-long-subdomain.example.com` });
    expect((await call(stack.url, 'POST', '/api/auth/user/register', { body: account })).status).toBe(201);
    const user = { account };
    const page = await consoleOf(user.account);
    await page.setViewport({ width: 360, height: 740 });
    await page.reload();
    await page.waitForSelector('.sessions li');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);

    // Signed out from another device: the next call the console makes sends it to sign-in.
    const other = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } });
    await call(stack.url, 'POST', '/api/auth/user/sessions/sign-out-others', { headers: { authorization: `Bearer ${other.body.data.accessToken}` } });
    await press(page, 'Download your data');
    await page.waitForFunction(() => location.pathname === '/login' && new URLSearchParams(location.search).get('return_to') === '/account', { timeout: 10_000 });

    await page.goto(`${origin}/login?after=undo`);
    await waitForHeading(page, 'Sign in');
    expect(await page.$eval('[role=status]', (s) => s.textContent)).toMatch(/^The change of address is undone/);
  });

  it('ends another session, then every other, and changes the password from the console', async () => {
    const user = await registerAndLogin(stack);
    const page = await consoleOf(user.account);
    // Two sessions: the API client's (registerAndLogin) and this browser's.
    expect(await page.$$eval('.sessions li', (items) => items.length)).toBe(2);
    await page.click('.sessions li button');
    await page.waitForFunction(() => document.querySelectorAll('.sessions li').length === 1, { timeout: 10_000 });
    const refreshed = await call(stack.url, 'POST', '/api/auth/user/refresh', { headers: { cookie: `userRefreshToken=${user.refresh}` } });
    expect(refreshed.status).toBe(401);

    const other = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } });
    expect(other.status).toBe(200);
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('.sessions li').length === 2, { timeout: 10_000 });
    // Asked first: nothing ends at the first press.
    await press(page, 'Sign out everywhere else');
    await page.waitForFunction(() => document.activeElement?.textContent?.startsWith('Every other browser and device'), { timeout: 10_000 });
    expect((await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${other.body.data.accessToken}` } })).status).toBe(200);
    expect(await accessibilityProblems(page)).toEqual([]);
    await press(page, 'Sign them all out');
    await page.waitForFunction(() => document.body.textContent?.includes('One other session ended.'), { timeout: 10_000 });
    expect((await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${other.body.data.accessToken}` } })).status).toBe(401);

    const next = 'a brand new passphrase 42';
    await fill(page, 'Current password', user.account.password);
    await fill(page, 'New password', next);
    await press(page, 'Change password');
    await page.waitForFunction(() => document.body.textContent?.includes('Your password is changed.'), { timeout: 10_000 });
    // The console goes on with its new session; the new password signs in, the old does not.
    await page.reload();
    await page.waitForSelector('.sessions li');
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: next } })).status).toBe(200);
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } })).status).toBe(401);

    await page.click('#sign-out');
    await page.waitForFunction(() => location.pathname === '/login', { timeout: 10_000 });
    await page.goto(`${origin}/account`);
    // No session: the console sends the visitor to sign in, and back here afterwards.
    await page.waitForFunction(() => location.pathname === '/login' && location.search === '?return_to=%2Faccount', { timeout: 10_000 });
  });

  it('changes the name and the picture from the console; each session says where and on what it was opened', async () => {
    const user = await registerAndLogin(stack);
    const page = await consoleOf(user.account);
    // This browser's session: its address and its browser and system, read from the sign-in.
    const meta = await page.$$eval('.sessions li .session-meta', (items) => items.map((i) => i.textContent ?? ''));
    expect(meta.some((m) => /from (::ffff:)?127\.0\.0\.1 · Chrome on Linux/.test(m))).toBe(true);

    await page.waitForFunction(() => document.body.textContent?.includes('No picture yet.'), { timeout: 10_000 });
    const image = path.join(pagesDir, 'me.png');
    fs.writeFileSync(image, Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'));
    const fileInput = await page.$('input[type=file]');
    await fileInput!.uploadFile(image);
    await press(page, 'Upload picture');
    await page.waitForFunction(() => document.body.textContent?.includes('Your picture is changed.'), { timeout: 10_000 });
    await page.waitForFunction(() => (document.querySelector('img.avatar') as { naturalWidth?: number } | null)?.naturalWidth === 1, { timeout: 10_000 });
    expect((await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${user.accessToken}` } })).body.data.user.avatar.contentType).toBe('image/png');

    const name = await page.$('input[name=name]');
    await name!.click({ clickCount: 3 });
    await page.keyboard.type('Ada L');
    await press(page, 'Save name');
    await page.waitForFunction(() => document.body.textContent?.includes('Your name is changed.'), { timeout: 10_000 });
    expect((await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${user.accessToken}` } })).body.data.user.name).toBe('Ada L');
    expect(await accessibilityProblems(page)).toEqual([]);

    await press(page, 'Remove picture');
    await page.waitForFunction(() => document.body.textContent?.includes('Your picture is removed.'), { timeout: 10_000 });
    expect(await page.$eval('img.avatar', (img) => (img as { hidden?: boolean }).hidden)).toBe(true);
    expect((await call(stack.url, 'GET', '/api/auth/user/me/avatar', { headers: { authorization: `Bearer ${user.accessToken}` } })).status).toBe(404);
    // Both changes on the account's own history, as its own acts.
    await page.reload();
    await page.waitForFunction(() => document.querySelector('[data-type="avatar_removed"]') && document.querySelector('[data-type="profile_updated"]'), { timeout: 10_000 });
  });

  it('sets up an authenticator app from the console behind a fresh password, shows the recovery codes once, and one of them signs in', async () => {
    const user = await registerAndLogin(stack);
    const page = await freshPage();
    await page.goto(`${origin}/login`);
    await waitForHeading(page, 'Sign in');
    await signInByKeyboard(page, user.account.email, user.account.password);
    await page.waitForFunction(() => document.body.textContent?.includes('Set up an authenticator app'), { timeout: 10_000 });
    // The sign-in's proof has run out (as it does after STEP_UP_SECONDS): the change asks again.
    expect((await scanKeys(stack.redis, `${stack.names.redisPrefix}step-up:*`)).length).toBeGreaterThan(0);
    await deleteRedisPrefix(stack.redis, `${stack.names.redisPrefix}step-up:`);
    await press(page, 'Set up an authenticator app');
    await page.waitForSelector('dialog[open]');
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('password');
    await enterText(page, 'not the password');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('dialog [role=alert]')?.textContent === 'The email or password is wrong.', { timeout: 10_000 });
    await page.$eval('dialog input[name=password]', (i) => ((i as HTMLInputElement).value = ''));
    await enterText(page, user.account.password);
    await page.keyboard.press('Enter');

    await page.waitForSelector('.enrolment img[src^="data:image/png;base64,"]', { timeout: 10_000 });
    expect(await page.$('dialog')).toBeNull();
    const key = (await page.$eval('.enrolment .secret', (c) => c.textContent ?? '')).replace(/\s/g, '');
    const secret = Secret.fromBase32(key);
    const into = Date.now() % 30_000;
    if (into > 26_000) await new Promise((r) => setTimeout(r, 31_000 - into));
    await page.keyboard.type(new TOTP({ secret }).generate());
    await page.keyboard.press('Enter');
    await page.waitForSelector('.recovery-codes li', { timeout: 10_000 });
    const codes = await page.$$eval('.recovery-codes li', (items) => items.map((i) => i.textContent ?? ''));
    expect(codes).toHaveLength(10);
    expect(await page.$eval('.recovery-codes a[download]', (a) => a.getAttribute('href'))).toMatch(/^blob:/);
    expect(await page.$eval('.factor', (f) => f.textContent ?? '')).toContain('On since');
    expect(await accessibilityProblems(page)).toEqual([]);
    // Removing it is asked first; kept, it stays on.
    await press(page, 'Remove the authenticator app');
    await page.waitForFunction(() => document.activeElement?.textContent?.startsWith('Without the authenticator app'), { timeout: 10_000 });
    await press(page, 'Keep the app');
    expect((await call(stack.url, 'GET', '/api/auth/user/factors', { headers: { authorization: `Bearer ${user.accessToken}` } })).body.data.factors.totp.enabled).toBe(true);

    // Signed out, the next sign-in asks for the second step: a recovery code answers it.
    await page.click('#sign-out');
    await page.waitForFunction(() => location.pathname === '/login', { timeout: 10_000 });
    await waitForHeading(page, 'Sign in');
    await signInByKeyboard(page, user.account.email, user.account.password);
    await waitForHeading(page, 'Confirm it is you');
    await press(page, 'Use a recovery code instead');
    await page.waitForSelector('input[name=recovery_code]');
    await page.keyboard.type(codes[0]);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.pathname === '/account', { timeout: 10_000 });
    await page.waitForFunction(() => document.body.textContent?.includes('9 unused codes left.'), { timeout: 10_000 });
  });

  it('adds a passkey from the console, then signs in with it alone: from the email field’s suggestions, and with the button', async () => {
    const user = await registerAndLogin(stack);
    const page = await freshPage();
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page);
    // The virtual authenticator answers a prompt only when told a person is there.
    const presence = (enabled: boolean) => cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled });
    const passkeySignIns = () => stack.logs.request.filter((r) => r.path === '/api/auth/user/passkey/login' && r.status === 200).length;
    const before = passkeySignIns();
    await addPasskeyFromConsole(page, user.account, 'Test laptop');
    // The account's first factor: its recovery codes, shown once.
    await page.waitForSelector('.recovery-codes li');
    expect(await accessibilityProblems(page)).toEqual([]);

    // Signed out, the sign-in page asks for a passkey in the email field's suggestions (a
    // conditional request): the authenticator picks the passkey, as a person would, and in it is.
    await page.click('#sign-out');
    await page.waitForFunction(() => location.pathname === '/account' && document.querySelector('.passkeys li .session-meta')?.textContent?.startsWith('last used'), { timeout: 15_000 });
    expect(passkeySignIns()).toBe(before + 1);

    // The button: its prompt replaces the waiting suggestion. With nobody there, the suggestion's
    // request waits (the virtual authenticator never answers a request made while nobody is
    // there). The button is pressed only once that request has its options: pressed sooner, the
    // suggestion's late start would cancel the button's prompt instead (CI saw that once). A person
    // is there again before the press, so the button's prompt alone is answered.
    const optionsGiven = () => stack.logs.request.filter((r) => r.path === '/api/auth/user/passkey/options' && r.status === 200).length;
    await presence(false);
    await page.click('#sign-out');
    await page.waitForFunction(() => location.pathname === '/login' && document.querySelector('h1')?.textContent === 'Sign in', { timeout: 10_000 });
    expect(await page.$eval('input[name=email]', (i) => i.getAttribute('autocomplete'))).toBe('username webauthn');
    // The suggestion's options have come back to the page (its prompt starts within a task of that).
    await page.waitForFunction(() => performance.getEntriesByType('resource').some((e: any) => e.name.endsWith('/api/auth/user/passkey/options')), { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 200));
    await presence(true);
    // Still on the sign-in page: the waiting suggestion did not answer when a person came back.
    await new Promise((r) => setTimeout(r, 500));
    expect(await page.evaluate(() => location.pathname)).toBe('/login');
    const suggestionOnly = optionsGiven();
    await press(page, 'Sign in with a passkey');
    await page.waitForFunction(() => location.pathname === '/account', { timeout: 15_000 });
    expect(passkeySignIns()).toBe(before + 2);
    // The button asked for options of its own: it, not the suggestion, signed in.
    expect(optionsGiven()).toBe(suggestionOnly + 1);

    // Removed from the console (asked first), by its id in the factor list, as any factor is.
    await page.waitForFunction(() => document.querySelector('.passkeys li .session-name')?.textContent === 'Test laptop', { timeout: 10_000 });
    await press(page, 'Remove');
    await page.waitForFunction(() => document.activeElement?.textContent?.startsWith('The passkey Test laptop will no longer sign you in'), { timeout: 10_000 });
    await press(page, 'Remove Test laptop');
    await page.waitForFunction(() => document.body.textContent?.includes('No passkey yet.'), { timeout: 10_000 });
    const removals = () => stack.logs.request.filter((r) => r.method === 'DELETE' && /^\/api\/auth\/user\/factors\/[^/]+$/.test(r.path));
    await until(() => removals().length > 0, 2_000, 'the removal logged');
    expect(removals().map((r) => r.status)).toEqual([200]);
  });

  it('signs in with an identity provider from the sign-in page, then links one to a password account from the console', async () => {
    await until(async () => (await call(stack.url, 'GET', '/api/auth/identity-providers')).body.data.providers[0]?.available, 10_000, 'the provider discovered');
    const person = { sub: `p-${Date.now()}`, email: `provider.${Date.now()}@example.com`, email_verified: true, name: 'Provider Person' };
    await idp.addAccount(person);
    const page = await freshPage();
    await page.goto(`${origin}/login`);
    await page.waitForFunction(() => [...document.querySelectorAll('button')].some((b: any) => b.textContent === 'Sign in with Corp SSO'), { timeout: 10_000 });
    await press(page, 'Sign in with Corp SSO');
    await signInAtProvider(page, person.sub);
    // Back on the hosted sign-in, which finds the session the callback opened and goes on.
    await page.waitForFunction(() => location.pathname === '/account' && document.querySelector('dl'), { timeout: 15_000 });
    expect(await page.$eval('dl', (d) => d.textContent ?? '')).toContain(person.email);

    // A password account links the same kind of identity from its console.
    const user = await registerAndLogin(stack);
    const other = { sub: `q-${Date.now()}`, email: `linked.${Date.now()}@example.com`, email_verified: true, name: 'Linked Person' };
    await idp.addAccount(other);
    const owner = await freshPage();
    await owner.goto(`${origin}/login`);
    await waitForHeading(owner, 'Sign in');
    await signInByKeyboard(owner, user.account.email, user.account.password);
    await owner.waitForFunction(() => [...document.querySelectorAll('button')].some((b: any) => b.textContent === 'Link Corp SSO'), { timeout: 10_000 });
    await press(owner, 'Link Corp SSO');
    await signInAtProvider(owner, other.sub);
    await owner.waitForFunction(() => document.body.textContent?.includes('The provider is linked'), { timeout: 15_000 });
    expect(owner.url()).toBe(`${origin}/account`);
    await owner.waitForFunction(() => [...document.querySelectorAll('button')].some((b: any) => b.getAttribute('aria-label') === 'Unlink Corp SSO'), { timeout: 10_000 });
    expect(await accessibilityProblems(owner)).toEqual([]);
    await owner.click('button[aria-label="Unlink Corp SSO"]');
    await owner.waitForFunction(() => document.body.textContent?.includes('The provider is unlinked.'), { timeout: 10_000 });
  });

  it('moves the account to another address from the console, confirmed from the mailed link, then deletes the account', async () => {
    const user = await registerAndLogin(stack);
    const page = await freshPage();
    await page.goto(`${origin}/login`);
    await waitForHeading(page, 'Sign in');
    await signInByKeyboard(page, user.account.email, user.account.password);
    await page.waitForFunction(() => document.body.textContent?.includes('Change email address'), { timeout: 10_000 });
    const next = `moved.${Date.now()}@example.com`;
    await fill(page, 'New email address', next);
    await fill(page, 'Your password', user.account.password);
    await press(page, 'Change email address');
    await page.waitForFunction(() => document.body.textContent?.includes('keeps its current address until you open that link'), { timeout: 10_000 });

    const link = await linkMailedTo(next, /https?:\/\/\S+\?action=confirm&token=[A-Za-z0-9_-]{43}/);
    await page.goto(onStack(link));
    await waitForHeading(page, 'Confirm your new email address');
    await press(page, 'Use this address');
    await page.waitForFunction(() => document.body.textContent?.includes('Your account now uses this address.'), { timeout: 10_000 });
    await page.goto(`${origin}/account`);
    // The console shows whole: the moment its sections come in, each holds its first answer already,
    // so nothing fills in above a button a person is aiming at (seen from a mutation observer, which
    // runs before the page is drawn).
    const firstSight = await page.waitForFunction(
      () => {
        const count = (selector: string) => document.querySelector(selector)?.children.length;
        return count('ol.activity') !== undefined && { sessions: count('ul.sessions'), activity: count('ol.activity'), trustedBrowsers: count('ul.trusted-browsers') };
      },
      { polling: 'mutation', timeout: 10_000 },
    );
    // Each list holds at least a line (the sessions, the sign-in just made, "no trusted browser"): none is still empty.
    expect(Object.entries((await firstSight.jsonValue()) as Record<string, number>).filter(([, lines]) => lines === 0)).toEqual([]);
    await page.waitForFunction((email) => document.querySelector('dl')?.textContent?.includes(email), { timeout: 10_000 }, next);

    // One press asks, and deletes nothing (the sign-in a moment ago is a recent proof: no password is needed).
    await press(page, 'Delete my account');
    await page.waitForFunction(() => document.activeElement?.textContent?.startsWith('Are you sure? Once deleted'), { timeout: 10_000 });
    expect(await accessibilityProblems(page)).toEqual([]);
    await press(page, 'Keep my account');
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: next, password: user.account.password } })).status).toBe(200);
    await press(page, 'Delete my account');
    await fill(page, 'Password, to confirm', user.account.password);
    await press(page, 'Delete my account for good');
    await waitForHeading(page, 'Your account is deleted.');
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: next, password: user.account.password } })).status).toBe(401);
  });

  it('resets a forgotten password from the mailed link; the token leaves the address bar', async () => {
    const user = await registerAndLogin(stack);
    const page = await freshPage();
    await page.goto(`${origin}/forgot-password`);
    await waitForHeading(page, 'Reset your password');
    expect(await accessibilityProblems(page)).toEqual([]);
    await fill(page, 'Email', user.account.email);
    await press(page, 'Send the link');
    await page.waitForFunction(() => document.body.textContent?.includes('is on its way'), { timeout: 10_000 });

    const link = await linkMailedTo(user.account.email, /https?:\/\/\S+\/reset-password\?token=[A-Za-z0-9_-]+/);
    expect(new URL(link).origin + new URL(link).pathname).toBe('http://localhost:8080/reset-password');
    await page.goto(onStack(link));
    await waitForHeading(page, 'Choose a new password');
    expect(page.url()).toBe(`${origin}/reset-password`);
    expect(await accessibilityProblems(page)).toEqual([]);
    const next = 'another long passphrase';
    await fill(page, 'New password', next);
    await fill(page, 'New password again', 'something else entirely');
    await press(page, 'Set the new password');
    expect(await page.$eval('[aria-invalid=true]', (i) => (i as HTMLInputElement).name)).toBe('confirm');
    await page.$eval('input[name=confirm]', (i) => ((i as HTMLInputElement).value = ''));
    await fill(page, 'New password again', next);
    await press(page, 'Set the new password');
    await page.waitForFunction(() => document.body.textContent?.includes('Your password is changed'), { timeout: 10_000 });
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: next } })).status).toBe(200);

    // The same link again: refused, with a way to ask for another.
    await page.goto(onStack(link));
    await waitForHeading(page, 'Choose a new password');
    await fill(page, 'New password', 'yet another passphrase');
    await fill(page, 'New password again', 'yet another passphrase');
    await press(page, 'Set the new password');
    await page.waitForFunction(() => document.querySelector('[role=alert]')?.textContent?.startsWith('This reset link is invalid'), { timeout: 10_000 });
    expect(await page.$$eval('a', (as) => as.map((a) => a.getAttribute('href')))).toContain('/forgot-password');
  });

  it('returns after sign-in only to this site or a listed app origin', async () => {
    const user = await registerAndLogin(stack);
    const signIn = async (returnTo: string) => {
      const page = await freshPage();
      await page.goto(`${origin}/login?return_to=${encodeURIComponent(returnTo)}`);
      await waitForHeading(page, 'Sign in');
      await signInByKeyboard(page, user.account.email, user.account.password);
      await page.waitForFunction((start) => location.href !== start, { timeout: 10_000 }, page.url());
      await page.waitForNetworkIdle({ idleTime: 200 });
      return page.url();
    };
    // The page applies the one rule (libs/shared/src/return-target.ts, bundled into it), whose forms
    // are held by libs/shared/test/return-target.test.ts: every attack's form (another origin,
    // `javascript:`, the paths that resolve to `//`, `<origin>@evil`) is there, in milliseconds. The
    // browser keeps one refused form and the one only a browser's URL parser makes: a tab it drops,
    // which would leave the path protocol-relative.
    expect(await signIn('//evil.example/steal')).toBe(`${origin}/account`);
    expect(await signIn('/\t/evil.example/steal')).toBe(`${origin}/account`);
    expect(await signIn('/account?from=test')).toBe(`${origin}/account?from=test`);
    expect(await signIn(`${app.origin}/signed-in`)).toBe(`${app.origin}/signed-in`);
  });
});

/** The admin sign-in page of a deployment with no admin: the first-run form, filled in; then the same page once the admin exists. */
async function createTheFirstAdmin(): Promise<typeof firstRun> {
  const page = await freshPage();
  await page.goto(`${origin}/admin/login`);
  // Whichever view the page chose: the first-run form, or (were an admin there) the sign-in.
  await page.waitForFunction(() => ['Set up the first administrator', 'Sign in as an administrator'].includes(document.querySelector('h1')?.textContent), { timeout: 10_000 });
  const heading = await page.$eval('h1', (e) => e.textContent ?? undefined);
  const problems = await accessibilityProblems(page);
  const admin = buildAccount({ name: 'First Admin' });
  await fill(page, 'Name', admin.name);
  await fill(page, 'Email', admin.email);
  await fill(page, 'Password', admin.password);
  await press(page, 'Create the administrator');
  await page.waitForFunction(() => document.querySelector('[role=status]')?.textContent?.startsWith('The first administrator is ready'), { timeout: 10_000 });
  const done = await page.$eval('[role=status]', (e) => e.textContent ?? undefined);
  const methods = (await call(stack.url, 'GET', '/api/auth/sign-in-methods')).body.data.firstAdmin;
  await page.goto(`${origin}/admin/login`);
  await waitForHeading(page, 'Sign in as an administrator');
  const afterwards = await page.$eval('h1', (e) => e.textContent ?? undefined);
  await page.browserContext().close();
  return { heading, problems, done, afterwards, methods };
}

describe('the first run', () => {
  it('creates the first admin from the admin sign-in page while none exists, and the page is the sign-in once one does', () => {
    expect(firstRun).toEqual({
      heading: 'Set up the first administrator',
      problems: [],
      done: 'The first administrator is ready. Sign in with it.',
      afterwards: 'Sign in as an administrator',
      methods: false,
    });
  });
});

describe('signing in by email', () => {
  /** The newest sign-in mail to the address: its link (opened on this stack) and its code. */
  async function signInMail(address: string, after = 0): Promise<{ link: string; code: string }> {
    const found = await until(
      () =>
        mails()
          .filter((m) => m.includes(`To: ${address}`) && m.includes('Subject: Sign in to'))
          .slice(after)
          .map((m) => ({ link: /https?:\/\/\S+\?email_sign_in=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.exec(m)?.[0], code: /enter this code:\s+(\d{6})/.exec(m)?.[1] }))
          .find((m) => m.link && m.code),
      10_000,
      `a sign-in mail to ${address}`,
    );
    return { link: onStack(found.link as string), code: found.code as string };
  }
  const signInMails = (address: string) => mails().filter((m) => m.includes(`To: ${address}`) && m.includes('Subject: Sign in to')).length;

  /** On the sign-in page: the email choice, the address, and the mail asked for; the page then waits for the link or the code. */
  async function askByEmail(page: Page, address: string, from = '/login'): Promise<void> {
    await page.goto(`${origin}${from}`);
    await waitForHeading(page, 'Sign in');
    await page.waitForFunction(() => [...document.querySelectorAll('button')].some((b: any) => b.textContent === 'Email me a sign-in link' && !b.closest('[hidden]')), { timeout: 10_000 });
    await press(page, 'Email me a sign-in link');
    await waitForHeading(page, 'Sign in by email');
    expect(await accessibilityProblems(page)).toEqual([]);
    await fill(page, 'Email', address);
    await press(page, 'Email me a link');
    await waitForHeading(page, 'Check your email');
  }

  it('signs the browser that asked in from the mailed link, once, and goes where the sign-in was to return; the link leaves the address bar, and used again it says so', async () => {
    const user = await registerAndLogin(stack);
    const page = await freshPage();
    await askByEmail(page, user.account.email, `/login?return_to=${encodeURIComponent('/account?came=back')}`);
    expect(await accessibilityProblems(page)).toEqual([]);
    const { link } = await signInMail(user.account.email);
    expect(new URL(link).pathname).toBe('/login');
    // Opened as a mail's link is: a new tab of the same browser.
    const tab = await page.browserContext().newPage();
    await tab.goto(link);
    await tab.waitForFunction(() => location.pathname === '/account' && location.search === '?came=back', { timeout: 10_000 });
    await tab.close();
    await page.goto(`${origin}/account`);
    await page.waitForFunction(() => location.pathname === '/account' && document.querySelector('h1')?.textContent === 'Your account', { timeout: 10_000 });
    await page.waitForSelector('.activity li[data-type=signed_in]');
    expect(await page.$eval('.activity li[data-type=signed_in]', (i) => i.textContent ?? '')).toContain('method: email');

    // The same link again, in the same browser: used up.
    const again = await freshPage();
    await again.goto(link);
    await again.waitForFunction(() => document.querySelector('[role=alert]')?.textContent !== undefined && document.querySelector('[role=alert]') !== null, { timeout: 10_000 });
    const said = await again.$eval('[role=alert]', (e) => e.textContent);
    // A fresh browser holds no flow cookie: the link is refused as another browser's, or as used.
    expect(said).toMatch(/used or expired|another browser/);
    await page.goto(link);
    await page.waitForFunction(() => document.querySelector('[role=alert]')?.textContent === 'This sign-in link is invalid, used or expired. Ask for a new one.', { timeout: 10_000 });
    expect(await page.evaluate(() => location.search)).toBe('');
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('signs a second browser in with the code, where the link opened in another browser signs nothing in', async () => {
    const user = await registerAndLogin(stack);
    const tv = await freshPage();
    await askByEmail(tv, user.account.email);
    const { link, code } = await signInMail(user.account.email);

    // The link opened on the laptop, which did not ask: refused, and left for the browser that did.
    const laptop = await freshPage();
    await laptop.goto(link);
    await waitForHeading(laptop, 'Open the link where you asked for it');
    expect(await laptop.$eval('[role=alert]', (e) => e.textContent)).toContain('type the code from the same email on the device that asked');
    expect(await accessibilityProblems(laptop)).toEqual([]);
    expect(await laptop.evaluate(() => fetch('/api/auth/user/refresh', { method: 'POST', credentials: 'include' }).then((r) => r.status))).toBe(401);

    // A wrong code at the field, then the right one.
    await fill(tv, 'The 6-digit code from the email', code === '000000' ? '111111' : '000000');
    await tv.keyboard.press('Enter');
    await tv.waitForFunction(() => document.querySelector('.error-summary li')?.textContent === 'That code is wrong or already used.', { timeout: 10_000 });
    expect(await tv.$eval('input[name=code]', (i) => i.getAttribute('aria-invalid'))).toBe('true');
    expect(await accessibilityProblems(tv)).toEqual([]);
    await tv.$eval('input[name=code]', (i) => ((i as HTMLInputElement).value = ''));
    await fill(tv, 'The 6-digit code from the email', code);
    await tv.keyboard.press('Enter');
    await tv.waitForFunction(() => location.pathname === '/account', { timeout: 10_000 });

    // The code used the link up with it: the browser that asked gets nothing more from it.
    await tv.goto(link);
    await tv.waitForFunction(() => document.querySelector('[role=alert]')?.textContent === 'This sign-in link is invalid, used or expired. Ask for a new one.', { timeout: 10_000 });
  });

  it('takes wrong codes up to the budget, then asks to start again; an expired link says so', async () => {
    const user = await registerAndLogin(stack);
    const page = await freshPage();
    await askByEmail(page, user.account.email);
    const { code, link } = await signInMail(user.account.email);
    const wrong = code === '000000' ? '111111' : '000000';
    // OTP_MAX_ATTEMPTS (5) wrong codes, each at the field; the next is told the sign-in is over.
    for (let i = 0; i < 5; i++) {
      await page.$eval('input[name=code]', (el) => ((el as HTMLInputElement).value = ''));
      await fill(page, 'The 6-digit code from the email', wrong);
      await page.keyboard.press('Enter');
      await page.waitForFunction((n) => (globalThis as any).performance.getEntriesByType('resource').filter((e: any) => e.name.endsWith('/email-sign-in/code')).length === n, { timeout: 10_000 }, i + 1);
    }
    await page.$eval('input[name=code]', (el) => ((el as HTMLInputElement).value = ''));
    await fill(page, 'The 6-digit code from the email', code);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.error-summary li, [role=alert]')?.textContent?.includes('This sign-in has expired. Start again.'), { timeout: 10_000 });
    // Its link went with it: the flow is spent.
    await page.goto(link);
    await page.waitForFunction(() => document.querySelector('[role=alert]')?.textContent === 'This sign-in link is invalid, used or expired. Ask for a new one.', { timeout: 10_000 });

    // An expired one: its flow's life over (the key gone from Redis, as its TTL would remove it).
    await askByEmail(page, user.account.email);
    const before = signInMails(user.account.email);
    const expired = await signInMail(user.account.email, before - 1);
    await deleteRedisPrefix(stack.redis, `${stack.names.redisPrefix}sign-in:{${new URL(expired.link).searchParams.get('email_sign_in')!.split('.')[0]}}`);
    await page.goto(expired.link);
    await page.waitForFunction(() => document.querySelector('[role=alert]')?.textContent === 'This sign-in link is invalid, used or expired. Ask for a new one.', { timeout: 10_000 });
    await press(page, 'Sign in by email on this browser');
    await waitForHeading(page, 'Sign in by email');
  });

  it('turns password sign-in off from the console, asked first, where the mailbox is another way in; the password then signs nothing in', async () => {
    const user = await registerAndLogin(stack);
    const page = await consoleOf(user.account);
    await page.waitForFunction(() => [...document.querySelectorAll('button')].some((b: any) => b.textContent === 'Turn password sign-in off'), { timeout: 10_000 });
    await press(page, 'Turn password sign-in off');
    await page.waitForFunction(() => document.activeElement?.textContent?.startsWith('Your password will stop working'), { timeout: 10_000 });
    expect(await accessibilityProblems(page)).toEqual([]);
    await press(page, 'Turn the password off');
    await page.waitForFunction(() => document.body.textContent?.includes('You sign in without a password'), { timeout: 10_000 });
    const login = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } });
    expect([login.status, login.body.code]).toEqual([401, 'invalid_credentials']);
    // The console goes on in this browser, signed in by the new session the answer carried.
    await page.reload();
    await page.waitForFunction(() => document.body.textContent?.includes('You sign in without a password'), { timeout: 10_000 });
    await page.waitForSelector('.activity li[data-type=password_removed]');
    expect(await page.$eval('.activity li[data-type=password_removed]', (i) => i.textContent ?? '')).toContain('Password turned off');
  });

  it('asks an account with a passkey for it as the second step after the link', async () => {
    const user = await registerAndLogin(stack);
    const page = await freshPage();
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page);
    const presence = (enabled: boolean) => cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled });
    await addPasskeyFromConsole(page, user.account, 'Phone');
    // Signed out with nobody at the authenticator: the sign-in page's passkey suggestion waits unanswered.
    await presence(false);
    await page.click('#sign-out');
    await waitForHeading(page, 'Sign in');
    await askByEmail(page, user.account.email);
    const { link } = await signInMail(user.account.email);
    await presence(true);
    await page.goto(link);
    await waitForHeading(page, 'Confirm it is you');
    expect(await accessibilityProblems(page)).toEqual([]);
    // No session yet: the mailbox is one factor.
    expect(await page.evaluate(() => fetch('/api/auth/user/refresh', { method: 'POST', credentials: 'include' }).then((r) => r.status))).toBe(401);
    await press(page, 'Use a passkey');
    await page.waitForFunction(() => location.pathname === '/account', { timeout: 15_000 });
  });
});

describe('the admin console', () => {
  it('finds a user, disables and enables them, ends their sessions, sets a password, deletes them behind a fresh password; reads the log and adds an admin', async () => {
    const admin = await registerAndLogin(stack, 'admin');
    const user = await registerAndLogin(stack);
    await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } });
    const page = await freshPage();
    await page.goto(`${origin}/admin`);
    // No session: to the admins' sign-in, and back.
    await page.waitForFunction(() => location.pathname === '/admin/login', { timeout: 10_000 });
    await waitForHeading(page, 'Sign in as an administrator');
    await signInByKeyboard(page, admin.account.email, admin.account.password);
    await page.waitForFunction(() => location.pathname === '/admin' && document.querySelector('table.users'), { timeout: 10_000 });
    expect(await accessibilityProblems(page)).toEqual([]);

    await fill(page, 'Search by email or name', user.account.email);
    await press(page, 'Search');
    // The list answers this search (not the first, unfiltered one, which may show this one user too).
    await page.waitForFunction((email) => document.querySelector('.user-list')?.getAttribute('data-query') === `${email}||`, { timeout: 10_000 }, user.account.email);
    expect(await page.$$eval('table.users tbody tr', (rows) => rows.map((r) => r.getAttribute('data-user')))).toEqual([user.id]);
    await page.click(`tr[data-user="${user.id}"] a`);
    await waitForHeading(page, user.account.name);
    await page.waitForSelector('.sessions li');
    expect(await page.$$eval('.sessions li', (items) => items.length)).toBe(2);
    expect(await accessibilityProblems(page)).toEqual([]);

    await press(page, 'Disable the account');
    await page.waitForFunction(() => document.body.textContent?.includes('The account is disabled'), { timeout: 10_000 });
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } })).body.code).toBe('account_disabled');
    await press(page, 'Enable the account');
    await page.waitForFunction(() => document.body.textContent?.includes('The account is enabled.'), { timeout: 10_000 });
    const again = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } });
    expect(again.status).toBe(200);
    await page.reload();
    await page.waitForSelector('.sessions li');
    await press(page, 'End every session');
    await page.waitForFunction(() => document.body.textContent?.includes('No live session.'), { timeout: 10_000 });
    expect((await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${again.body.data.accessToken}` } })).status).toBe(401);

    const password = 'set by the admin 2026';
    await fill(page, 'New password for the user', password);
    await press(page, 'Set a new password');
    await page.waitForFunction(() => document.body.textContent?.includes('The password is set'), { timeout: 10_000 });
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password } })).status).toBe(200);

    // The admin's proof has run out: deleting asks for the password again.
    await deleteRedisPrefix(stack.redis, `${stack.names.redisPrefix}step-up:`);
    await press(page, 'Delete the user');
    await press(page, 'Delete for good');
    await page.waitForSelector('dialog[open]');
    await enterText(page, admin.account.password);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash === '#/users' && document.body.textContent?.includes('The user is deleted.'), { timeout: 10_000 });
    expect((await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password } })).status).toBe(401);

    // The deployment's log names what this admin did, newest first.
    await page.click('nav a[href="#/activity"]');
    await waitForHeading(page, 'Activity log');
    await page.waitForSelector('.activity li[data-type]');
    expect(await accessibilityProblems(page)).toEqual([]);
    const bySelf = await page.$$eval('.activity li[data-type]', (items, id) => items.filter((i) => i.textContent?.includes(`by administrator ${id}`)).map((i) => i.getAttribute('data-type')), admin.id);
    expect(bySelf.slice(0, 1)).toEqual(['account_deleted']);

    await page.click('nav a[href="#/admins"]');
    await waitForHeading(page, 'Administrators');
    const invited = buildAccount();
    await fill(page, 'Email', invited.email);
    await fill(page, 'Name', invited.name);
    await fill(page, 'First password', invited.password);
    await press(page, 'Add');
    await page.waitForFunction((email) => document.body.textContent?.includes(`${email} is an administrator now.`), { timeout: 10_000 }, invited.email);
    expect(await page.$$eval('[data-admin]', (items) => items.length)).toBeGreaterThanOrEqual(2);
    expect(await accessibilityProblems(page)).toEqual([]);
    expect((await call(stack.url, 'POST', '/api/auth/admin/login', { body: { email: invited.email, password: invited.password } })).status).toBe(200);
  });
  it('finds users by verified and disabled, shows a user’s passkeys by name, publishes and withdraws a desktop release behind a fresh password', async () => {
    const admin = await registerAndLogin(stack, 'admin');
    // A user who added a passkey from their own console (and never proved their address).
    const user = await registerAndLogin(stack);
    const own = await freshPage();
    await addVirtualAuthenticator(own);
    await addPasskeyFromConsole(own, user.account, 'Work phone');
    await own.browserContext().close();

    const page = await freshPage();
    await page.goto(`${origin}/admin/login?return_to=%2Fadmin`);
    await waitForHeading(page, 'Sign in as an administrator');
    await signInByKeyboard(page, admin.account.email, admin.account.password);
    await page.waitForFunction(() => location.pathname === '/admin' && document.querySelector('table.users'), { timeout: 10_000 });
    /** Searches for the user's address with the two flags; answers the ids listed. */
    const search = async (verified: string, disabled: string) => {
      await page.select('#verified', verified);
      await page.select('#disabled', disabled);
      await press(page, 'Search');
      await page.waitForFunction((q) => document.querySelector('.user-list')?.getAttribute('data-query') === q, { timeout: 10_000 }, `${user.account.email}|${verified}|${disabled}`);
      return page.$$eval('table.users tbody tr', (rows) => rows.map((r) => r.getAttribute('data-user')));
    };
    await fill(page, 'Search by email or name', user.account.email);
    expect(await search('false', 'false')).toEqual([user.id]);
    expect(await search('true', '')).toEqual([]);
    expect(await search('', 'true')).toEqual([]);
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(await search('false', '')).toEqual([user.id]);
    await page.click(`tr[data-user="${user.id}"] a`);
    await waitForHeading(page, user.account.name);
    // The user's factors as the service lists them: the passkey by its name, then the recovery codes it came with.
    await page.waitForFunction(() => document.querySelector('.factors li[data-method="passkey"] .session-name')?.textContent === 'Work phone', { timeout: 10_000 });
    expect(await page.$eval('.factors li[data-method="passkey"] .session-meta', (m) => m.textContent)).toMatch(/^added .* · never used$/);
    expect(await page.$$eval('.factors li', (items) => items.map((i) => [i.getAttribute('data-method'), i.querySelector('.session-meta')?.textContent?.replace(/ · made .*/, '')]))).toEqual([
      ['passkey', expect.stringMatching(/^added /)],
      ['recovery_code', '10 codes left'],
    ]);

    // Releases: publishing asks for the password again once the admin's proof has run out.
    await page.click('nav a[href="#/releases"]');
    await waitForHeading(page, 'Desktop releases');
    await page.waitForFunction(() => document.body.textContent?.includes('No release published yet.'), { timeout: 10_000 });
    await deleteRedisPrefix(stack.redis, `${stack.names.redisPrefix}step-up:`);
    await page.select('#platform', 'win32');
    await fill(page, 'Version (such as 1.4.0)', '7.1.0');
    await fill(page, 'Download address', 'https://downloads.example.com/win32/7.1.0.exe');
    await fill(page, 'SHA-256 of the download', 'c0ffee'.repeat(10) + 'c0ff');
    await fill(page, 'Release notes', 'Faster sync.');
    await page.click('#mandatory');
    await press(page, 'Publish');
    await page.waitForSelector('dialog[open]');
    await enterText(page, admin.account.password);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.body.textContent?.includes('win32 7.1.0 is published'), { timeout: 10_000 });
    expect(await page.$eval('tr[data-release="win32-7.1.0"]', (r) => r.textContent)).toContain('published, mandatory');
    expect(await accessibilityProblems(page)).toEqual([]);
    const latest = await call(stack.url, 'GET', '/api/desktop/latest-version?platform=win32');
    expect(latest.body.data).toMatchObject({ version: '7.1.0', mandatory: true, notes: 'Faster sync.', url: 'https://downloads.example.com/win32/7.1.0.exe' });

    // The same version again: refused, saying why.
    await fill(page, 'Version (such as 1.4.0)', '7.1.0');
    await fill(page, 'Download address', 'https://downloads.example.com/win32/7.1.0.exe');
    await fill(page, 'SHA-256 of the download', 'c0ffee'.repeat(10) + 'c0ff');
    await page.select('#platform', 'win32');
    await press(page, 'Publish');
    await page.waitForFunction(() => document.body.textContent?.includes('That version was published before for this platform.'), { timeout: 10_000 });

    await press(page, 'Withdraw');
    await page.waitForFunction(() => document.body.textContent?.includes('win32 7.1.0 is withdrawn'), { timeout: 10_000 });
    expect(await page.$eval('tr[data-release="win32-7.1.0"]', (r) => r.textContent)).toContain('withdrawn');
    expect((await call(stack.url, 'GET', '/api/desktop/latest-version?platform=win32')).status).toBe(404);
  });
});

describe('a branded deployment', () => {
  it('shows its name and logo in every page’s header and title, and its colour on the buttons', async () => {
    const page = await freshPage();
    await page.goto(`${origin}/login`);
    await waitForHeading(page, 'Sign in');
    expect(await page.$eval('header .brand', (h) => h.textContent?.trim())).toBe('Northwind');
    expect(await page.$eval('header img.logo', (i) => (i as any).naturalWidth > 0 && i.getAttribute('src'))).toBe('/brand/logo.svg');
    expect(await page.title()).toBe('Sign in · Northwind');
    expect(await page.$eval('button[type=submit]', (b) => getComputedStyle(b).backgroundColor)).toBe('rgb(107, 47, 179)');
    // The folder's own rule comes after the pages' styles.
    expect(await page.$eval('header', (h) => getComputedStyle(h).borderBottomWidth)).toBe('3px');
    expect(await accessibilityProblems(page)).toEqual([]);
    const theme = await call(origin, 'GET', '/brand/theme.css');
    expect([theme.status, theme.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
    expect((await call(origin, 'GET', '/brand/brand.css')).status).toBe(404);
  });
});

describe("the person's language", () => {
  /** The mail to `address` whose text matches `pattern`, decoded. */
  const mailTo = (address: string, pattern: RegExp) => until(() => mails().find((m) => m.includes(`To: ${address}`) && pattern.test(m)), 10_000, `a mail to ${address} matching ${pattern}`);
  const lang = (page: Page) => page.$eval('html', (e) => e.getAttribute('lang'));

  it('speaks what the browser asks for, switches on every page, keeps the choice for the account, and mails in it', async () => {
    const user = await registerAndLogin(stack);
    // A browser that asks for German gets every page in it, errors and the title too.
    const page = await freshPage();
    await page.setExtraHTTPHeaders({ 'Accept-Language': 'de-DE,de;q=0.9,en;q=0.5' });
    await page.goto(`${origin}/forgot-password`);
    await waitForHeading(page, 'Passwort zurücksetzen');
    expect([await lang(page), await page.title()]).toEqual(['de', 'Passwort zurücksetzen · Northwind']);
    await press(page, 'Link senden');
    await page.waitForFunction(() => document.title.startsWith('Fehler: '), { timeout: 10_000 });
    expect(await page.$eval('.field-error', (e) => e.textContent)).toBe('Geben Sie E-Mail ein');
    expect(await accessibilityProblems(page)).toEqual([]);
    // The mail a German page asks for is German, for an account that chose no language.
    await fill(page, 'E-Mail', user.account.email);
    await press(page, 'Link senden');
    await page.waitForFunction(() => document.body.textContent?.includes('ist ein Link zum Zurücksetzen'), { timeout: 10_000 });
    const reset = await mailTo(user.account.email, /Content-Language: de/);
    expect(reset).toContain(`Hallo ${user.account.name},`);

    // The switch, on the page's header: English, kept for this browser.
    expect(await page.$$eval('header nav[aria-label=Sprache] li', (items) => items.map((i) => [i.textContent, i.firstElementChild?.getAttribute('lang'), i.firstElementChild?.hasAttribute('aria-current')]))).toEqual([
      ['English', 'en', false],
      ['Deutsch', 'de', true],
    ]);
    await Promise.all([page.waitForNavigation(), press(page, 'English')]);
    await waitForHeading(page, 'Reset your password');
    expect(await lang(page)).toBe('en');
    await page.goto(`${origin}/login?return_to=/account`);
    await waitForHeading(page, 'Sign in');

    // Signed in, the choice made on the way is kept for the account (as Keycloak keeps a locale chosen at its login) ...
    await signInByKeyboard(page, user.account.email, user.account.password);
    await waitForHeading(page, 'Your account');
    const language = async () => (await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${user.accessToken}` } })).body.data.user.language;
    await until(async () => (await language()) === 'en', 5_000, 'the choice at sign-in kept for the account');
    // ... and one made on the console too (its switch is there once the account is read): every browser the account signs in on then speaks it.
    await page.waitForSelector('header nav.languages button[lang=de]', { timeout: 10_000 });
    await Promise.all([page.waitForNavigation(), press(page, 'Deutsch')]);
    await waitForHeading(page, 'Ihr Konto');
    await page.waitForSelector('.sessions li');
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(await language()).toBe('de');
    const elsewhere = await freshPage();
    await elsewhere.setExtraHTTPHeaders({ 'Accept-Language': 'en-US,en;q=0.9' });
    await elsewhere.goto(`${origin}/login?return_to=/account`);
    await waitForHeading(elsewhere, 'Sign in');
    await signInByKeyboard(elsewhere, user.account.email, user.account.password);
    await waitForHeading(elsewhere, 'Ihr Konto');
    await elsewhere.waitForSelector('.sessions li');
    // Dates as German writes them (day before month, a 24-hour clock).
    expect(await elsewhere.$eval('.sessions li', (li) => li.textContent)).toMatch(/\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}/);
  });
});

describe('how the gateway serves the pages', () => {
  it('sends a strict Content-Security-Policy, no inline script, revalidated HTML and immutable hashed assets', async () => {
    const res = await fetch(`${stack.url}/login`, { headers: { 'accept-encoding': 'br' } });
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    // Directive by directive, whole: a source added to any of them (an 'unsafe-inline', a CDN) fails here.
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name, sources]));
    expect(directives).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'img-src': ["'self'", 'data:', 'blob:'],
      'connect-src': ["'self'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
      'base-uri': ["'none'"],
    });
    expect(csp).not.toMatch(/unsafe-/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-encoding')).toBe('br');
    const html = await res.text();
    // No script runs but from a file: the page's texts are a JSON data block, which no browser runs.
    expect(html).not.toMatch(/<script(?![^>]*\b(?:src=|type="application\/json"))[^>]*>/);
    expect(html).toMatch(/<script type="application\/json" id="acct-texts">\{"lng":"en",/);
    expect(html).toContain(`<meta name="acct:return-origins" content="${app.origin}" />`);
    const again = await fetch(`${stack.url}/login`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    // Each language is its own page (a cache keys it by what chose it), made whole in that language.
    expect(res.headers.get('vary')).toBe('Accept-Encoding, Accept-Language, Cookie');
    const german = await fetch(`${stack.url}/login`, { headers: { 'accept-language': 'de', 'if-none-match': res.headers.get('etag')! } });
    expect([german.status, german.headers.get('content-language')]).toEqual([200, 'de']);
    const germanHtml = await german.text();
    expect(germanHtml).toMatch(/^<!doctype html>\s*<html lang="de"/i);
    expect(germanHtml).toContain('<noscript>Diese Seite braucht JavaScript.</noscript>');
    expect((await fetch(`${stack.url}/login`, { headers: { 'accept-language': 'de', cookie: 'acct_lang=en' } })).headers.get('content-language')).toBe('en');
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
    const script = await fetch(`${stack.url}${asset}`);
    expect([script.status, script.headers.get('cache-control'), script.headers.get('content-type')]).toEqual([200, 'public, max-age=31536000, immutable', 'text/javascript; charset=utf-8']);
    // Every page request is in the request log; anything else is still the API's 404.
    await until(() => stack.logs.request.some((r) => r.path === '/login' && r.status === 200), 2_000, 'the page request logged');
    const missing = await call(stack.url, 'GET', '/assets/nothing.js');
    expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
    expect((await call(stack.url, 'POST', '/login')).status).toBe(404);
  });
});

/** An app page on a loopback origin of its own, listed in CORS_ORIGINS: where a sign-in may return to. */
async function serveApp(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title><p>app</p>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}


/** oidc-provider's development forms: the login (any password), then the consent. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.waitForSelector('input[name=login]', { timeout: 15_000 });
  await page.type('input[name=login]', login);
  await page.type('input[name=password]', 'any');
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  const consent = await page.$('button[type=submit]');
  if (consent && new URL(page.url()).origin !== origin) await Promise.all([page.waitForNavigation(), consent.click()]);
}
