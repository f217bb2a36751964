// A real browser for tests that need one (pages, passkeys): Debian's Chromium driven by
// puppeteer-core over the DevTools protocol, with a WebAuthn virtual authenticator, and a page
// served on a loopback origin of the test's own that carries @simplewebauthn/browser. Chromium is
// installed from Debian's packages when missing and the test runs as root; where that cannot be
// done the test says why.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import puppeteer, { type Browser, type CDPSession, type Page } from 'puppeteer-core';
import chromiumArgs from './chromium-args.json';

/**
 * Chromium's headless shell (Debian's chromium-headless-shell) first: the same Blink and V8, and the
 * same DevTools protocol with its virtual authenticator, without the browser's window layer, which
 * headless Chromium still builds for every page (a window, its tab strip's state, the address bar's
 * popup). Measured on Chromium 156 (2026-11-30, the pages' file run alone, every process read from
 * /proc): the browser process 16.9 s with Chromium, 7.8 s with the shell; its renderers 18.2 and
 * 15.1 s; all of Chromium 39.9 and 26.3 s. CHROMIUM_PATH=/usr/bin/chromium runs the tests in the
 * whole browser (headless), as they ran before.
 */
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
const CANDIDATES = [process.env.CHROMIUM_PATH, HEADLESS_SHELL, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string => !!p);

/** The browser's path, installing Debian's chromium when it can; otherwise the reason it cannot. */
export function findChromium(): { path: string } | { missing: string } {
  const found = () => CANDIDATES.find((p) => fs.existsSync(p));
  let path = found();
  if (!path && process.getuid?.() === 0 && fs.existsSync('/usr/bin/apt-get')) {
    process.stdout.write('browser tests: installing Debian chromium-headless-shell (apt-get install chromium-headless-shell), once per machine\n');
    try {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', timeout: 300_000 });
      execFileSync('apt-get', ['install', '-y', '-qq', 'chromium-headless-shell'], { stdio: 'ignore', timeout: 600_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    } catch (err) {
      return { missing: `installing chromium failed: ${(err as Error).message}` };
    }
    path = found();
  }
  return path ? { path } : { missing: 'no Chromium on this machine (apt-get install chromium-headless-shell, or set CHROMIUM_PATH), and not root to install it' };
}

/**
 * Headless Chromium as this machine lets it run (chromium-args.json, which bench/chromium-costs.mjs
 * launches with too): no sandbox as root, no background network calls, and two things off. Chromium
 * 14x preloads the address bar's popup (a WebUI page in a renderer of its own) for every window,
 * headless too: a second renderer for each browser context a test opens. Measured on Chromium 156
 * (2026-11-29): five contexts opened in 4.3 s with it, 2.5 s without, and in the pages' file 33 such
 * renderers took 57 s of CPU. Nor a renderer per site of each context (site isolation guards a
 * browser against a hostile renderer, which no test has; what a page may read of another origin is
 * the same either way): the pages' file 141 s and 112 s of CPU with it, 121 s and 98 s without.
 * Puppeteer merges `--disable-features` with its own list.
 */
export function launchChromium(executablePath: string): Promise<Browser> {
  // The shell is started as puppeteer starts its own (headless: 'shell'); the whole browser in its headless mode.
  return puppeteer.launch({ executablePath, headless: /headless[-_]shell$/.test(executablePath) ? 'shell' : true, args: chromiumArgs });
}

let axe: string | undefined;
/** axe-core's script (560 KB), read once per test file. */
const axeSource = () => (axe ??= fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));

/** axe-core's findings that are serious or critical (run through DevTools, which the page's CSP does not govern). */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  // Sent once per document: a page that already has it (the same document, checked again) runs it as it is.
  if (!(await page.evaluate(() => typeof (globalThis as any).axe === 'object'))) await page.evaluate(axeSource());
  const result = (await page.evaluate(() => (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] }))) as {
    violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
  };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Puts `text` into the field `into` selects (focused first, as a click would), or else the focused
 * one, in one input, as a paste or an input method does: the page gets its `beforeinput` and
 * `input` events (what the pages listen to; none listens for keys), not a key down and up for each
 * character. Typing key by key is a DevTools round trip per event and 2.4 to 3.7 ms of Chromium's
 * browser process a key (bench/chromium-costs.mjs, 2026-11-29 and 30); the pages' file typed about
 * 2,500 characters so. A test about keys (a keyboard-only journey, what a page does while a
 * password is typed) types them with `page.keyboard`.
 */
export async function enterText(page: Page, text: string, into?: string): Promise<void> {
  if (into && !(await page.evaluate(focusField, into, null))) throw new Error(`no field "${into}" to enter text into`);
  // Input.insertText, whatever the text's length.
  await page.keyboard.sendCharacter(text);
}

/** Enters `value` into the field whose label reads `label` exactly. */
export async function fill(page: Page, label: string, value: string): Promise<void> {
  if (!(await page.evaluate(focusField, null, label))) throw new Error(`no field labelled "${label}"`);
  await page.keyboard.sendCharacter(value);
}

/**
 * Focuses the field `selector` selects, or else the one whose label reads `label`; whether there
 * was one. Run in the page, in one DevTools round trip: puppeteer's `$$eval` and `focus` took about
 * 25 between them (the query in its own world, the handle handed to the page's, each released).
 * `node bench/browser-steps.mjs` (this process and all of Chromium, 2026-11-30): a field filled so
 * took 19.8 and 21.3 ms of CPU in two runs, and 2.4 and 2.9 ms this way.
 */
function focusField(selector: string | null, label: string | null): boolean {
  const doc = (globalThis as any).document;
  const forId = label === null ? undefined : [...doc.querySelectorAll('label')].find((l: any) => l.textContent === label)?.getAttribute('for');
  const field = selector !== null ? doc.querySelector(selector) : forId ? doc.getElementById(forId) : null;
  if (!field) return false;
  field.focus();
  return true;
}

/**
 * A page in a fresh browser profile (no cookies, no storage), phone-sized unless `viewport` is
 * false, whose script errors and Content-Security-Policy violations land in `problems` for the test
 * to check.
 */
export async function watchedPage(browser: Browser, problems: string[], options: { viewport?: boolean } = {}): Promise<Page> {
  const page = await (await browser.createBrowserContext()).newPage();
  if (options.viewport !== false) await page.setViewport({ width: 360, height: 740 });
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  return page;
}

/**
 * Closes every browser context the test opened (each page of `watchedPage` is one). A context left
 * open keeps its renderer and the page's own timers running for the rest of the file: the pages'
 * file left 70 of them behind, each still refreshing its session in the background.
 */
export async function closePages(browser: Browser | undefined): Promise<void> {
  if (!browser?.connected) return;
  await Promise.all(browser.browserContexts().filter((context) => context !== browser.defaultBrowserContext()).map((context) => context.close()));
}

/**
 * Clicks the visible button whose text reads `text` exactly, once it is there and has kept its place
 * for two frames. A click is a press at a point: a button still moving (a page filling in above it)
 * takes the press somewhere else, as the account console's delete button did under load on
 * 2026-11-29 (it moved 1,000 px in the second after it appeared).
 */
export async function press(page: Page, text: string, timeout = 10_000): Promise<void> {
  // Found, scrolled to and measured by one function in the page, which waits there, and pressed at
  // its middle: asking each button for its text was a round trip each (9 s of the pages' file's
  // profile on 2026-11-29), and puppeteer's waitForFunction and ElementHandle.click took about 30
  // more: 19.3 and 20.2 ms of CPU a press in two runs of `node bench/browser-steps.mjs`, and 9.4 and
  // 8.2 ms this way (2026-11-30; most of what is left is the two frames it waits).
  const deadline = Date.now() + timeout;
  let at: { x: number; y: number } | null = null;
  while (!at) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no button "${text}" that stays put within ${timeout} ms`);
    try {
      at = await page.evaluate(stableButton, text, left);
    } catch (err) {
      // A navigation ended the document the function waited in: wait in the next one, as waitForFunction does.
      if (!/context was destroyed|Cannot find context/i.test((err as Error).message)) throw err;
    }
  }
  await page.mouse.click(at.x, at.y);
}

/**
 * In the page: the middle of the visible, enabled button reading `text`, scrolled into view if it was
 * not (as puppeteer's click scrolls), once it has kept its place for two frames; null after `waitMs`.
 */
async function stableButton(text: string, waitMs: number): Promise<{ x: number; y: number } | null> {
  const doc = (globalThis as any).document;
  const view = globalThis as any;
  const frame = () => new Promise((resolve) => (globalThis as any).requestAnimationFrame(resolve));
  const until = Date.now() + waitMs;
  for (;;) {
    const button = [...doc.querySelectorAll('button')].find((b: any) => b.textContent === text && b.checkVisibility() && !b.disabled);
    if (button) {
      const seen = button.getBoundingClientRect();
      if (seen.top < 0 || seen.left < 0 || seen.bottom > view.innerHeight || seen.right > view.innerWidth) button.scrollIntoView({ block: 'center', inline: 'nearest' });
      const before = JSON.stringify(button.getBoundingClientRect());
      await frame();
      await frame();
      const box = button.getBoundingClientRect();
      if (JSON.stringify(box) === before && button.isConnected) return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    }
    if (Date.now() > until) return null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A platform authenticator with resident keys and user verification, that says yes by itself. */
export async function addVirtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.createCDPSession();
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, authenticatorId };
}

/**
 * An empty page on `http://localhost:<port>` that loads @simplewebauthn/browser (as the global
 * `SimpleWebAuthnBrowser`): the origin a test lists in CORS_ORIGINS and WEBAUTHN_ORIGINS.
 */
export async function servePasskeyPage(): Promise<{ origin: string; close(): Promise<void> }> {
  // The package exports its modules only; its browser bundle sits beside them.
  const packageDir = path.resolve(path.dirname(require.resolve('@simplewebauthn/browser')), '..');
  const bundle = fs.readFileSync(path.join(packageDir, 'dist', 'bundle', 'index.umd.min.js'));
  const server = http.createServer((req, res) => {
    if (req.url === '/simplewebauthn.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>passkeys</title><script src="/simplewebauthn.js"></script><p>app</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
