// The bot checks (security/bot-checks.ts) against what they stand on: ALTCHA on real Redis (a solved
// challenge passes once, and nothing else passes: another key's challenge, a changed solution, an
// expired one, a malformed answer), the widgets' siteverify against a local double (what is sent, and
// a siteverify that does not answer is a 503, never "a bot"), and the domain's guard on top.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Redis from 'ioredis';
import { isolatedRedis, type IsolatedRedis } from '@acct/test-harness/isolation';
import { solve } from '@acct/test-harness/bot-check';
import { AltchaBotCheck, NO_BOT_CHECK, SiteverifyBotCheck } from '../src/security/bot-checks';
import { assertHuman } from '../src/domain/shared/bot-check';
import { AuthErrors } from '../src/errors';
import { requestOf } from './fakes';
import { loadAuthConfig } from '../src/config';

let isolated: IsolatedRedis;
let redis: Redis;
const settings = { work: 60, cost: 10, ttlSeconds: 60, key: 'a bot-check key of at least thirty-two characters' };

beforeAll(() => {
  isolated = isolatedRedis('botcheck');
  ({ redis } = isolated);
});
afterAll(() => isolated.close());

/** A challenge of `check`, solved. */
async function solved(check: AltchaBotCheck): Promise<string> {
  const given = await check.challenge();
  if (given.kind !== 'altcha') throw new Error('not altcha');
  return solve(given.challenge as never);
}
const decode = (answer: string) => JSON.parse(Buffer.from(answer, 'base64').toString()) as { challenge: any; solution: any };
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe('ALTCHA', () => {
  it('passes a solved challenge once', async () => {
    const check = new AltchaBotCheck(redis, settings);
    const answer = await solved(check);
    expect(await check.passes(answer)).toBe(true);
    expect(await check.passes(answer)).toBe(false);
  });

  it('refuses a challenge signed with another key, a derived key not found by the work, changed parameters, and what is no answer at all', async () => {
    const check = new AltchaBotCheck(redis, settings);
    const other = new AltchaBotCheck(redis, { ...settings, key: 'another key of at least thirty-two characters!' });
    expect(await check.passes(await solved(other))).toBe(false);
    const answer = decode(await solved(check));
    expect(await check.passes(encode({ ...answer, solution: { ...answer.solution, derivedKey: '00'.repeat(32) } }))).toBe(false);
    // An easier challenge of one's own making: its parameters no longer match the signature.
    expect(await check.passes(encode({ ...answer, challenge: { ...answer.challenge, parameters: { ...answer.challenge.parameters, cost: 1 } } }))).toBe(false);
    for (const junk of ['', 'not base64 json', encode({}), encode({ challenge: {}, solution: {} }), encode(null)]) expect(await check.passes(junk)).toBe(false);
    // The true answer still passes: none of the above spent it.
    expect(await check.passes(encode(answer))).toBe(true);
  });

  it('refuses a challenge past its lifetime', async () => {
    const check = new AltchaBotCheck(redis, { ...settings, ttlSeconds: 1 });
    const answer = await solved(check);
    await new Promise((r) => setTimeout(r, 2_100));
    expect(await check.passes(answer)).toBe(false);
  });

  it('asks about half the work it is set to, and never more', async () => {
    const check = new AltchaBotCheck(redis, settings);
    const counters: number[] = [];
    for (let i = 0; i < 5; i++) counters.push(decode(await solved(check)).solution.counter);
    for (const counter of counters) {
      expect(counter).toBeGreaterThanOrEqual(settings.work / 2);
      expect(counter).toBeLessThanOrEqual(settings.work);
    }
  });
});

describe('Turnstile and hCaptcha (siteverify)', () => {
  let server: http.Server;
  let url: string;
  let answer: (body: URLSearchParams) => { status: number; body: unknown } = () => ({ status: 200, body: { success: true } });
  const received: URLSearchParams[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        const form = new URLSearchParams(raw);
        received.push(form);
        const { status, body } = answer(form);
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('sends the secret, the token and the address, and passes what siteverify vouches for', async () => {
    received.length = 0;
    answer = (form) => ({ status: 200, body: { success: form.get('response') === 'good-token' } });
    const check = new SiteverifyBotCheck({ kind: 'turnstile', siteKey: 'site', secretKey: 'the secret key', verifyUrl: url, script: 'https://challenges.cloudflare.com/turnstile/v0/api.js' });
    expect(await check.challenge()).toEqual({ kind: 'turnstile', siteKey: 'site', script: 'https://challenges.cloudflare.com/turnstile/v0/api.js' });
    expect(await check.passes('good-token', '203.0.113.7')).toBe(true);
    expect(await check.passes('bad-token', '203.0.113.7')).toBe(false);
    expect(Object.fromEntries(received[0])).toEqual({ secret: 'the secret key', response: 'good-token', remoteip: '203.0.113.7' });
  });

  it('answers 503 when siteverify fails or does not answer, never "a bot"', async () => {
    answer = () => ({ status: 500, body: {} });
    const check = new SiteverifyBotCheck({ kind: 'hcaptcha', siteKey: 'site', secretKey: 'secret', verifyUrl: url, script: 'https://js.hcaptcha.com/1/api.js', timeoutMs: 500 });
    await expect(check.passes('token', '203.0.113.7')).rejects.toMatchObject({ code: 'service_unavailable' });
    const gone = new SiteverifyBotCheck({ kind: 'hcaptcha', siteKey: 'site', secretKey: 'secret', verifyUrl: 'http://127.0.0.1:9/siteverify', script: 'https://js.hcaptcha.com/1/api.js', timeoutMs: 500 });
    await expect(gone.passes('token', '203.0.113.7')).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});

describe('the guard of the marked routes', () => {
  it('lets everything through while off, and otherwise only a body whose botCheck passes', async () => {
    await expect(assertHuman({ botCheck: NO_BOT_CHECK }, {}, requestOf())).resolves.toBeUndefined();
    const check = new AltchaBotCheck(redis, settings);
    const deps = { botCheck: check };
    for (const body of [undefined, {}, { botCheck: 42 }, { botCheck: '' }, { botCheck: 'x'.repeat(8_193) }, { botCheck: 'not an answer' }]) {
      await expect(assertHuman(deps, body, requestOf())).rejects.toEqual(AuthErrors.botCheckFailed());
    }
    const answer = await solved(check);
    await expect(assertHuman(deps, { email: 'a@example.com', botCheck: answer }, requestOf())).resolves.toBeUndefined();
    await expect(assertHuman(deps, { email: 'a@example.com', botCheck: answer }, requestOf())).rejects.toEqual(AuthErrors.botCheckFailed());
  });
});

describe('the settings of a widget', () => {
  it("give the pages the vendor's script, or the deployment's own (BOT_CHECK_SCRIPT_URL), which production wants over https", () => {
    const keys = { BOT_CHECK_SITE_KEY: 'site', BOT_CHECK_SECRET_KEY: 'secret' };
    expect(loadAuthConfig({ BOT_CHECK: 'turnstile', ...keys }).botCheck.widget?.script).toBe('https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit');
    expect(loadAuthConfig({ BOT_CHECK: 'hcaptcha', ...keys }).botCheck.widget?.script).toBe('https://js.hcaptcha.com/1/api.js?render=explicit&recaptchacompat=off');
    expect(loadAuthConfig({ BOT_CHECK: 'turnstile', ...keys, BOT_CHECK_SCRIPT_URL: 'https://cdn.example.com/turnstile.js' }).botCheck.widget?.script).toBe('https://cdn.example.com/turnstile.js');
    expect(() => loadAuthConfig({ BOT_CHECK: 'turnstile', ...keys, BOT_CHECK_SCRIPT_URL: 'http://cdn.example.com/turnstile.js', NODE_ENV: 'production' })).toThrow(/BOT_CHECK_SCRIPT_URL: must be https in production/);
  });
});
