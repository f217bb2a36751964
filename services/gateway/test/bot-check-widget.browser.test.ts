// A third-party bot check on the hosted pages (BOT_CHECK=turnstile), in Chromium, with the gateway
// in-process in front of a stand-in for auth and a stand-in for the vendor's script: the page shows
// the widget in its form, sends the widget's token with the request, takes a fresh one for the next,
// and the pages' Content-Security-Policy lets exactly that script in. (Auth's side, the token checked
// with the vendor's siteverify, is services/auth/test/bot-checks.state.test.ts; ALTCHA's whole
// path is test/e2e/limits.security.test.ts.)
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import { AccessTokenVerifier, closeServer, createMemoryLogger, listen, publicKeyFrom } from '@acct/shared';
import { Languages } from '@acct/shared/languages';
import { createGatewayHandler, helmetHeaders, loadGatewayConfig, Pages, pagesPolicy, UpstreamClient } from '@acct/gateway';
import { buildPages } from '@acct/test-harness/build';
import { accessibilityProblems, fill, findChromium, launchChromium, press, watchedPage } from '@acct/test-harness/browser';
import { testKeys } from '@acct/test-harness/keys';
import { until } from '@acct/test-harness/until';

declare const document: any;

const chromium = findChromium();
if ('missing' in chromium) throw new Error(`bot-check-widget.browser.test.ts needs Chromium: ${chromium.missing}`);

/** The vendor's script, as Turnstile's explicit rendering behaves: render() into the element, a token to the callback, reset() for a new one. */
const FAKE_TURNSTILE = `window.turnstile = (() => {
  let made = 0;
  const widgets = {};
  const pass = (id) => setTimeout(() => widgets[id].callback('passed-' + id + '-' + (++made)), 20);
  return {
    render(element, options) {
      const id = 'w' + Object.keys(widgets).length;
      widgets[id] = options;
      const box = document.createElement('p');
      box.className = 'fake-widget';
      box.textContent = 'Verified (' + options.sitekey + ', ' + options.language + ')';
      element.append(box);
      pass(id);
      return id;
    },
    reset(id) { pass(id); },
  };
})();`;

let vendor: http.Server;
let auth: http.Server;
let gateway: http.Server;
let upstream: UpstreamClient;
let browser: Browser;
let origin: string;
const pagesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-widget-pages-'));
/** What the stand-in for auth was sent on the bot-checked route. */
const forgotBodies: Array<Record<string, unknown>> = [];
const violations: string[] = [];

const json = (res: http.ServerResponse, status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

beforeAll(async () => {
  buildPages(pagesDir);
  vendor = http.createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/javascript' }).end(FAKE_TURNSTILE));
  const vendorOrigin = `http://127.0.0.1:${await listen(vendor, 0, '127.0.0.1')}`;
  const script = `${vendorOrigin}/turnstile/v0/api.js?render=explicit`;
  auth = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      if (req.url === '/api/auth/sign-in-methods') {
        const methods = { password: true, passkey: false, email: false, emailSignUp: false };
        return json(res, 200, { success: true, message: 'Sign-in methods', data: { user: methods, admin: methods, firstAdmin: false, trustedBrowserDays: 30, botCheck: 'turnstile' } });
      }
      if (req.url === '/api/auth/bot-check') return json(res, 200, { success: true, message: 'Bot check', data: { kind: 'turnstile', siteKey: 'site-key-1', script } });
      if (req.url === '/api/auth/user/forgot-password' && req.method === 'POST') {
        const body = JSON.parse(raw) as Record<string, unknown>;
        forgotBodies.push(body);
        if (typeof body.botCheck !== 'string' || !body.botCheck.startsWith('passed-')) return json(res, 400, { success: false, code: 'bot_check_failed', message: 'The bot check did not pass' });
        return json(res, 200, { success: true, message: 'If that email is registered, a reset link has been sent.' });
      }
      json(res, 404, { success: false, code: 'not_found', message: 'Not found' });
    });
  });
  const authUrl = `http://127.0.0.1:${await listen(auth, 0, '127.0.0.1')}`;
  const config = loadGatewayConfig({ AUTH_URL: authUrl, DESKTOP_URL: 'http://127.0.0.1:1', BOT_CHECK: 'turnstile', BOT_CHECK_SCRIPT_URL: script });
  const { publicKey } = testKeys();
  const verifier = new AccessTokenVerifier(publicKeyFrom(publicKey), config.JWT_ISSUER, config.JWT_AUDIENCE);
  upstream = new UpstreamClient(config.AUTH_URL, config.UPSTREAM_TIMEOUT_MS);
  const languages = new Languages();
  const pages = new Pages(pagesDir, { returnOrigins: [], securityHeaders: helmetHeaders().flat(), production: false, languages, widget: { kind: 'turnstile', scriptUrl: script } });
  const { logger } = createMemoryLogger();
  gateway = http.createServer(createGatewayHandler({ config, logger, requestLogger: logger, verifier, revocations: { isRevoked: () => false }, upstreams: { auth: upstream, desktop: upstream }, pages, languages }));
  origin = `http://localhost:${await listen(gateway, 0, '127.0.0.1')}`;
  browser = await launchChromium(chromium.path);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await upstream?.close();
  for (const server of [gateway, auth, vendor]) if (server) await closeServer(server);
  fs.rmSync(pagesDir, { recursive: true, force: true });
});

describe('a Turnstile-style widget on the hosted pages', () => {
  it("shows the widget in the form, sends its token with the request and a fresh one with the next, and the policy lets in that script alone", async () => {
    const res = await fetch(`${origin}/forgot-password`);
    const scriptOrigin = new URL(((await (await fetch(`${origin}/api/auth/bot-check`)).json()) as { data: { script: string } }).data.script).origin;
    const directives = Object.fromEntries((res.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name, sources]));
    expect([directives['script-src'], directives['frame-src'], directives['style-src'], directives['connect-src']]).toEqual([["'self'", scriptOrigin], [scriptOrigin], ["'self'"], ["'self'"]]);

    const page = await watchedPage(browser, violations);
    await page.setExtraHTTPHeaders({ 'Accept-Language': 'de' });
    await page.goto(`${origin}/forgot-password`);
    await page.waitForFunction(() => document.querySelector('form .bot-check .fake-widget')?.textContent === 'Verified (site-key-1, de)', { timeout: 10_000 });
    // In the form, before its button; the page passes the accessibility check with it.
    expect(await page.$eval('form', (form) => [...form.children].map((c) => c.className || c.tagName).slice(-3))).toEqual(['bot-check', 'BUTTON', expect.any(String)]);
    expect(await accessibilityProblems(page)).toEqual([]);

    await fill(page, 'E-Mail', 'grace@example.com');
    await press(page, 'Link senden');
    await until(() => forgotBodies.length === 1, 10_000, 'the first request');
    await page.waitForFunction(() => document.body.textContent?.includes('ist ein Link zum Zurücksetzen'), { timeout: 10_000 });
    await press(page, 'Link senden');
    await until(() => forgotBodies.length === 2, 10_000, 'the second request');
    const [first, second] = forgotBodies.map((b) => b.botCheck as string);
    expect(first).toMatch(/^passed-w0-\d+$/);
    expect(second).toMatch(/^passed-w0-\d+$/);
    expect(second).not.toBe(first);
    expect(violations).toEqual([]);
  });

  it('lets no widget script in while the check is off or self-hosted, and each vendor’s documented origins when it is on', () => {
    const config = loadGatewayConfig({});
    expect(config.BOT_CHECK).toBe('off');
    const pages = new Pages(pagesDir, { returnOrigins: [], securityHeaders: [], production: false });
    const headers = new Map<string, string>();
    pages.serve({ method: 'GET', headers: {}, resume() {} } as never, { writeHead: (_s: number, h: string[]) => h.forEach((v, i) => i % 2 === 0 && headers.set(v.toLowerCase(), h[i + 1])), end() {} } as never, '/login', 'r1');
    expect(headers.get('content-security-policy')).not.toMatch(/frame-src|127\.0\.0\.1|challenges\.cloudflare/);
    // The vendors' own origins, as they document them: hCaptcha's styles and calls too.
    expect(pagesPolicy(false, { kind: 'turnstile' })).toContain("script-src 'self' https://challenges.cloudflare.com; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-src https://challenges.cloudflare.com;");
    expect(pagesPolicy(false, { kind: 'hcaptcha' })).toContain(
      "script-src 'self' https://hcaptcha.com https://*.hcaptcha.com; style-src 'self' https://hcaptcha.com https://*.hcaptcha.com; img-src 'self' data: blob:; connect-src 'self' https://hcaptcha.com https://*.hcaptcha.com; frame-src https://hcaptcha.com https://*.hcaptcha.com;",
    );
  });
});
