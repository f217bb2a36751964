// The README's small browser client, as a developer would paste it: run in Chromium on a page of its
// own origin (listed in CORS_ORIGINS, the same site as the API), against the stack. A login with a
// second step hands back the challenge (no refresh fired, no token lost), verifyOtp finishes it, and
// the client then calls the API with the access token and refreshes it through the cookie.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { findChromium, launchChromium, servePasskeyPage } from '@acct/test-harness/browser';
import { enableAuthenticatorApp, registerAndLogin } from '@acct/test-harness/factories';
import { startStack, type TestStack } from '@acct/test-stack/stack';

const chromium = findChromium();
if ('missing' in chromium) throw new Error(`readme-client.browser.test.ts needs Chromium: ${chromium.missing}`);

/** The README's client code, as it stands in the README. */
function readmeClient(): string {
  const readme = fs.readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
  const block = /```js\n(\/\/ A small client:[\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no "A small client" code block');
  return block[1];
}

describe("the README's small browser client", () => {
  let stack: TestStack;
  let app: Awaited<ReturnType<typeof servePasskeyPage>>;
  let browser: Browser;
  let page: Page;
  let api: string;

  beforeAll(async () => {
    app = await servePasskeyPage();
    stack = await startStack('readmeclient', { gateway: { CORS_ORIGINS: app.origin } });
    api = stack.url.replace('127.0.0.1', 'localhost');
    browser = await launchChromium((chromium as { path: string }).path);
    page = await browser.newPage();
    await page.goto(app.origin);
    // The client as pasted, pointed at this stack, its functions kept on the page.
    const code = readmeClient().replace("const API = 'http://localhost:8080';", `const API = ${JSON.stringify(api)};`);
    await page.evaluate(`${code}\nglobalThis.client = { call, login, verifyOtp, refresh, logout, token: () => access };`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await app?.close();
  });

  it('hands back the challenge of a login with a second step, and verifyOtp signs in; the client then calls and refreshes', async () => {
    const user = await registerAndLogin(stack);
    const code = await enableAuthenticatorApp(stack, user.accessToken);

    const refreshesBefore = stack.logs.request.filter((r) => r.method === 'POST' && r.path === '/api/auth/user/refresh').length;
    const answer = (await page.evaluate((email, password) => (globalThis as any).client.login(email, password), user.account.email, user.account.password)) as any;
    expect(answer).toEqual({ challenge: { token: expect.any(String), expiresIn: 300, factors: ['totp', 'recovery_code'] } });
    // A wrong password is an error to show, not a reason to refresh.
    const wrong = (await page.evaluate((email) => (globalThis as any).client.login(email, 'not the password'), user.account.email)) as any;
    expect(wrong.error).toMatchObject({ code: 'invalid_credentials' });
    expect(stack.logs.request.filter((r) => r.method === 'POST' && r.path === '/api/auth/user/refresh').length).toBe(refreshesBefore);

    const verified = await page.evaluate((challenge, proof) => (globalThis as any).client.verifyOtp(challenge, { code: proof }), answer.challenge, code(30_000));
    expect(verified).toEqual({ signedIn: true });
    const me = (await page.evaluate(async () => {
      const res = await (globalThis as any).client.call('/api/auth/user/me');
      return { status: res.status, body: await res.json() };
    })) as any;
    expect([me.status, me.body.data.user.email]).toEqual([200, user.account.email]);
    expect(await page.evaluate(() => (globalThis as any).client.refresh())).toBe(true);
    expect(stack.logs.request.filter((r) => r.method === 'POST' && r.path === '/api/auth/user/refresh').length).toBe(refreshesBefore + 1);
  });
});
