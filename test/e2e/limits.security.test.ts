// Password guessing and the request limits, behind the bot check (BOT_CHECK=altcha, as a deployment
// under abuse would run): every login and sign-up here solves a challenge first, as the hosted pages
// do in Chromium below.

import type { Browser, Page } from 'puppeteer-core';
import { call } from '@acct/test-harness/http-client';
import { until } from '@acct/test-harness/until';
import { scanKeys } from '@acct/test-harness/isolation';
import { solvedBotCheck } from '@acct/test-harness/bot-check';
import { accessibilityProblems, fill, findChromium, launchChromium, press, watchedPage } from '@acct/test-harness/browser';
import { buildAccount, startStack, type TestStack } from '@acct/test-stack/stack';

// The page's own globals, in the functions evaluated in it.
declare const document: any;
declare const location: any;

// Password guessing: attempts are reserved before the compare, counted per account and address with
// an account-wide ceiling, keyed by the normalised email; a stranger cannot lock the owner out.
describe('login-abuse.security', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack('loginabuse', {
      // bcrypt slow enough, one at a time, that guesses sent at once are all in flight together.
      auth: {
        BCRYPT_COST: '10',
        BCRYPT_CONCURRENCY: '1',
        RATE_LOGIN_FAILURES_PER_ACCOUNT_IP: '5',
        RATE_LOGIN_FAILURES_PER_ACCOUNT: '8',
        // Sign-ins apps start through the OpenID provider: three a minute from an address.
        OPENID_PROVIDER: 'true',
        OPENID_CLIENTS: JSON.stringify([{ id: 'desktop', name: 'Desktop', firstParty: true, native: true, deviceCode: true, redirectUris: ['http://127.0.0.1/callback'] }]),
        RATE_OPENID_START_IP_PER_MINUTE: '3',
        // A proof of work on sign-up, login, forgot-password and sign-in by email; light here (a few
        // milliseconds a challenge), and every request of this file's many from one address gets one.
        BOT_CHECK: 'altcha',
        BOT_CHECK_ALTCHA_WORK: '40',
        BOT_CHECK_ALTCHA_COST: '50',
        RATE_BOT_CHECK_IP_PER_MINUTE: '100000',
      },
      gateway: { TRUST_PROXY: 'loopback' },
    });
  });
  afterAll(() => stack.stop());

  const login = async (email: string, password: string, ip: string) =>
    call(stack.url, 'POST', '/api/auth/user/login', { body: { email, password, botCheck: await solvedBotCheck(stack.url) }, headers: { 'x-forwarded-for': ip } });

  async function registered() {
    const account = buildAccount();
    const res = await call(stack.url, 'POST', '/api/auth/user/register', { body: { ...account, botCheck: await solvedBotCheck(stack.url) } });
    expect(res.status).toBe(201);
    return account;
  }

  /** Waits until the account's failure count from `ip` reaches `count` (or a second passes). */
  async function reservedAtLeast(email: string, ip: string, count: number) {
    const key = `${stack.names.redisPrefix}lf:{user:${email}}:ip:${ip}`;
    const deadline = Date.now() + 1_000;
    while (Number((await stack.redis.get(key)) ?? 0) < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  }

  describe("the OpenID provider's sign-in starts", () => {
    it('gives each address three a minute (authorization and device requests together), then 429 with Retry-After; another address has its own', async () => {
      const authorize = (ip: string) =>
        fetch(`${stack.url}/oidc/auth?response_type=code&client_id=desktop&redirect_uri=http%3A%2F%2F127.0.0.1%3A5555%2Fcallback&scope=openid&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`, {
          redirect: 'manual',
          headers: { 'x-forwarded-for': ip },
        });
      const device = (ip: string) =>
        fetch(`${stack.url}/oidc/device/auth`, { method: 'POST', headers: { 'x-forwarded-for': ip, 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_id=desktop&scope=openid' });
      expect((await authorize('203.0.113.70')).status).toBe(303);
      expect((await device('203.0.113.70')).status).toBe(200);
      expect((await authorize('203.0.113.70')).status).toBe(303);
      const refused = await device('203.0.113.70');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await authorize('203.0.113.70')).status).toBe(429);
      expect((await authorize('203.0.113.71')).status).toBe(303);
    });
  });

  describe('the bot check', () => {
    it('refuses a sign-up, a login, a forgot-password and a sign-in by email without a solved challenge, before any of them is counted; a solved one passes once', async () => {
      const account = await registered();
      const ip = '203.0.113.90';
      const without = [
        call(stack.url, 'POST', '/api/auth/user/register', { body: buildAccount(), headers: { 'x-forwarded-for': ip } }),
        call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password }, headers: { 'x-forwarded-for': ip } }),
        call(stack.url, 'POST', '/api/auth/admin/login', { body: { email: account.email, password: account.password }, headers: { 'x-forwarded-for': ip } }),
        call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email: account.email }, headers: { 'x-forwarded-for': ip } }),
        call(stack.url, 'POST', '/api/auth/user/email-sign-in', { body: { email: account.email }, headers: { 'x-forwarded-for': ip } }),
        call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password, botCheck: 'bm90IGFuIGFuc3dlcg==' }, headers: { 'x-forwarded-for': ip } }),
      ];
      for (const res of await Promise.all(without)) expect([res.status, res.body.code]).toEqual([400, 'bot_check_failed']);
      // Nothing of those was counted against the account: no failure reserved for it.
      expect(await stack.redis.get(`${stack.names.redisPrefix}lf:{user:${account.email}}:ip:${ip}`)).toBeNull();
      const answer = await solvedBotCheck(stack.url);
      const first = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password, botCheck: answer }, headers: { 'x-forwarded-for': ip } });
      expect(first.status).toBe(200);
      const again = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password, botCheck: answer }, headers: { 'x-forwarded-for': ip } });
      expect([again.status, again.body.code]).toEqual([400, 'bot_check_failed']);
      // What the pages learn first: that the check is on.
      expect((await call(stack.url, 'GET', '/api/auth/sign-in-methods')).body.data.botCheck).toBe('altcha');
    });

    it('is solved by the hosted pages in Chromium: a sign-up, a sign-in and a forgot-password go through', async () => {
      const chromium = findChromium();
      if ('missing' in chromium) throw new Error(`this test needs Chromium: ${chromium.missing}`);
      const browser: Browser = await launchChromium(chromium.path);
      const errors: string[] = [];
      try {
        const page: Page = await watchedPage(browser, errors);
        const usedBefore = (await scanKeys(stack.redis, `${stack.names.redisPrefix}bot-check:*`)).length;
        const heading = (text: string) => page.waitForFunction((t) => document.querySelector('h1')?.textContent === t, { timeout: 15_000 }, text);
        const account = buildAccount();
        await page.goto(`${stack.url}/register`);
        await heading('Create your account');
        await fill(page, 'Name', account.name);
        await fill(page, 'Email', account.email);
        await fill(page, 'Password', account.password);
        await press(page, 'Create account');
        await page.waitForFunction(() => document.body.textContent?.includes('Your account is ready'), { timeout: 15_000 });
        expect(await accessibilityProblems(page)).toEqual([]);

        await page.goto(`${stack.url}/login`);
        await heading('Sign in');
        await fill(page, 'Email', account.email);
        await fill(page, 'Password', account.password);
        await press(page, 'Sign in');
        await page.waitForFunction(() => location.pathname === '/account', { timeout: 15_000 });

        const other = await watchedPage(browser, errors);
        await other.goto(`${stack.url}/forgot-password`);
        await other.waitForFunction(() => document.querySelector('h1')?.textContent === 'Reset your password', { timeout: 15_000 });
        await fill(other, 'Email', account.email);
        await press(other, 'Send the link');
        await other.waitForFunction(() => document.body.textContent?.includes('a link to reset its password is on its way'), { timeout: 15_000 });
        // Each form sent a challenge of its own, solved: the service took three.
        expect((await scanKeys(stack.redis, `${stack.names.redisPrefix}bot-check:*`)).length - usedBefore).toBe(3);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    });
  });

  describe('failed-login limit', () => {
    it('when 14 wrong guesses are in flight, then the right password sent with them is refused 429, and only 5 guesses were compared', async () => {
      const account = await registered();
      const ip = '203.0.113.14';
      const wrong = Array.from({ length: 14 }, (_, i) => login(account.email, `wrong guess ${i}`, ip));
      await reservedAtLeast(account.email, ip, 5);
      const right = await login(account.email, account.password, ip);
      const statuses = (await Promise.all(wrong)).map((r) => r.status);
      expect(right.status).toBe(429);
      expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(statuses.filter((s) => s === 401)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    });

    it('when a stranger spends an address budget, then that address backs off and the owner on another address still logs in', async () => {
      const account = await registered();
      for (let i = 0; i < 5; i++) expect((await login(account.email, 'not the password', '198.51.100.1')).status).toBe(401);
      const attacker = await login(account.email, account.password, '198.51.100.1');
      expect(attacker.status).toBe(429);
      expect(attacker.body).toMatchObject({ success: false, code: 'rate_limited' });
      expect((await login(account.email, account.password, '192.0.2.55')).status).toBe(200);
      // The owner's success does not lift the stranger's back-off.
      expect((await login(account.email, 'not the password', '198.51.100.1')).status).toBe(429);
    });

    it('when failures from many addresses reach the account-wide ceiling, then every address backs off until a window passes', async () => {
      const account = await registered();
      for (const ip of ['10.1.0.1', '10.1.0.2']) {
        for (let i = 0; i < 4; i++) expect((await login(account.email, 'distributed guess', ip)).status).toBe(401);
      }
      const res = await login(account.email, account.password, '10.1.0.3');
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('when the email differs in case or by the trailing dot, then the failures still count for one account', async () => {
      const account = await registered();
      const [local, domain] = account.email.split('@');
      const variants = [account.email.toUpperCase(), `${local}@${domain.toUpperCase()}`, `${local}@${domain}.`, `${local[0].toUpperCase()}${local.slice(1)}@${domain}`, account.email];
      for (const email of variants) expect((await login(email, 'wrong password', '198.51.100.77')).status).toBe(401);
      expect((await login(account.email, account.password, '198.51.100.77')).status).toBe(429);
    });

    it('when the right password comes after a few failures, then it logs in and the count starts over', async () => {
      const account = await registered();
      const ip = '198.51.100.200';
      for (let i = 0; i < 4; i++) await login(account.email, 'wrong password', ip);
      expect((await login(account.email, account.password, ip)).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await login(account.email, 'wrong password', ip)).status).toBe(401);
      expect((await login(account.email, account.password, ip)).status).toBe(429);
    });

    it('when a stranger spreads guesses over the addresses of one IPv6 /64, then the whole /64 backs off, and another network is unaffected', async () => {
      const account = await registered();
      for (let i = 1; i <= 5; i++) expect((await login(account.email, 'not the password', `2001:db8:aa:1::${i.toString(16)}`)).status).toBe(401);
      // A sixth address of the same /64, even with the right password, gets the /64's back-off.
      expect((await login(account.email, account.password, '2001:db8:aa:1:ffff::77')).status).toBe(429);
      expect((await login(account.email, account.password, '2001:db8:aa:2::1')).status).toBe(200);
    });

    it('when strangers fill the account-wide ceiling, then the owner from an address that signed in before still logs in, and new addresses back off', async () => {
      const account = await registered();
      expect((await login(account.email, account.password, '192.0.2.200')).status).toBe(200);
      for (const ip of ['10.9.0.1', '10.9.0.2']) {
        for (let i = 0; i < 4; i++) expect((await login(account.email, 'distributed guess', ip)).status).toBe(401);
      }
      expect((await login(account.email, account.password, '10.9.0.3')).status).toBe(429);
      expect((await login(account.email, account.password, '192.0.2.200')).status).toBe(200);
    });

    it('when a trusted X-Forwarded-For carries something that is not an address, then it is ignored: the connection address stands', async () => {
      const requestId = `xff-garbage-${Date.now()}`;
      await call(stack.url, 'GET', '/nowhere', { headers: { 'x-forwarded-for': 'not-an-address', 'x-request-id': requestId } });
      expect((await until(() => stack.logs.request.find((r) => r.request_id === requestId), 5_000, 'the request\'s log record')).ip).toBe('127.0.0.1');
    });
  });
});

// The rate-limit file's other cases moved down: 429 with Retry-After and the code past the account's
// budget, and a success clearing the count, are this file's cases above; the per-client login
// budget and forgot-password's per-address budget are services/auth/test/domain/limits.test.ts.
