/* global document, location */
// The hosted pages' pictures in the docs (docs/screenshots/*.png), taken from a running stack:
//   npm start            (in another terminal)
//   npm run docs:screenshots
// It registers a throwaway user through the API, signs in through the page, and photographs each
// page at a phone's width in Debian's Chromium (CHROMIUM_PATH to use another). SCREENSHOTS_PREFIX
// names another set (`branded-` for a stack started with PRODUCT_NAME, BRAND_COLOR and BRAND_DIR),
// SCREENSHOTS_ONLY a few of them (`login,account`), SCREENSHOTS_LANGUAGE the language the browser
// asks for (its Accept-Language: `de` for the German set).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lock = path.join(root, '.stack', 'stack.json');
const gateway = process.env.GATEWAY_URL ?? (fs.existsSync(lock) ? JSON.parse(fs.readFileSync(lock, 'utf8')).gatewayUrl : undefined);
if (!gateway) {
  console.error('no running stack: start one with npm start (or set GATEWAY_URL)');
  process.exit(1);
}
// localhost: a secure context, so the refresh cookie is kept.
const origin = gateway.replace('127.0.0.1', 'localhost');
const out = path.join(root, 'docs', 'screenshots');
fs.mkdirSync(out, { recursive: true });
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!fs.existsSync(executablePath)) {
  console.error(`no Chromium at ${executablePath} (apt-get install chromium, or set CHROMIUM_PATH)`);
  process.exit(1);
}

const stamp = Date.now().toString(36);
const account = { name: 'Grace', email: `grace.${stamp}@example.com`, password: 'correct horse battery' };
const registered = await fetch(`${gateway}/api/auth/user/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) });
if (registered.status !== 201) {
  console.error(`register answered ${registered.status}: ${await registered.text()}`);
  process.exit(1);
}

const browser = await puppeteer.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
  if (process.env.SCREENSHOTS_LANGUAGE) await page.setExtraHTTPHeaders({ 'Accept-Language': process.env.SCREENSHOTS_LANGUAGE });
  const prefix = process.env.SCREENSHOTS_PREFIX ?? '';
  const only = process.env.SCREENSHOTS_ONLY ? new Set(process.env.SCREENSHOTS_ONLY.split(',')) : undefined;
  const shoot = async (name, url, settle) => {
    if (url) await page.goto(`${origin}${url}`);
    await page.waitForSelector('h1');
    if (settle) await settle();
    if (only && !only.has(name)) return;
    await page.screenshot({ path: path.join(out, `${prefix}${name}.png`), fullPage: true });
    console.log(`docs/screenshots/${prefix}${name}.png  ${url ?? page.url().replace(origin, '')}`);
  };
  await shoot('register', '/register');
  await shoot('forgot-password', '/forgot-password');
  await shoot('reset-password', `/reset-password?token=${'x'.repeat(43)}`);
  await shoot('email-link', `/account/email?action=verify&token=${'x'.repeat(43)}`);
  await shoot('login', '/login', async () => {
    await page.type('input[name=email]', account.email);
    await page.type('input[name=password]', 'not the password');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[role=alert]:not(:empty)');
  });
  await page.$eval('input[name=password]', (i) => (i.value = ''));
  await page.type('input[name=password]', account.password);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => location.pathname === '/account' && document.querySelector('.sessions li'));
  await shoot('account', undefined);

  // The admin console, when this deployment lets a first admin register (a fresh npm start does).
  const admin = { name: 'Ada', email: `ada.${stamp}@example.com`, password: 'correct horse battery staple' };
  const adminRegistered = await fetch(`${gateway}/api/auth/admin/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(admin) });
  if (only && !only.has('admin-users')) {
    // Not asked for.
  } else if (adminRegistered.status !== 201) {
    console.log(`admin console: skipped (the first admin could not register here: ${adminRegistered.status})`);
  } else {
    const adminPage = await browser.newPage();
    await adminPage.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
    await adminPage.goto(`${origin}/admin/login`);
    await adminPage.waitForSelector('input[name=email]');
    await adminPage.type('input[name=email]', admin.email);
    await adminPage.type('input[name=password]', admin.password);
    await adminPage.keyboard.press('Enter');
    await adminPage.waitForFunction(() => location.pathname === '/admin' && document.querySelector('table.users'));
    await adminPage.screenshot({ path: path.join(out, 'admin-users.png'), fullPage: true });
    console.log('docs/screenshots/admin-users.png  /admin');
    await adminPage.click('table.users tbody tr a');
    await adminPage.waitForSelector('.sessions li, .sessions + p, section');
    await adminPage.waitForFunction(() => document.querySelectorAll('section').length >= 5);
    await adminPage.screenshot({ path: path.join(out, 'admin-user.png'), fullPage: true });
    console.log('docs/screenshots/admin-user.png  /admin#/users/<id>');
  }
} finally {
  await browser.close();
}
