// The guide's try-it recipe for sign-in with a provider (docs/guide.md): `npm run dev:idp` starts a provider and
// prints the variables to start the stack with; with exactly those, a browser signs in as dev-user.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { RedirectBrowser } from '@acct/test-harness/redirect-browser';
import { until } from '@acct/test-harness/until';
import { stopChild } from '@acct/test-harness/processes';
import { call } from '@acct/test-harness/http-client';
import { startStack, type TestStack } from '@acct/test-stack/stack';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const deps = require('../../scripts/lib/dependencies.js');

const API_HOST = 'api.test';
let idp: ChildProcess;
let stack: TestStack;
let printed = '';

beforeAll(async () => {
  const port = await deps.freePort();
  idp = spawn(process.execPath, [path.resolve(__dirname, '../../scripts/dev-idp.mjs')], { env: { ...process.env, IDP_PORT: String(port), GATEWAY_URL: `http://${API_HOST}` }, stdio: ['ignore', 'pipe', 'ignore'] });
  idp.stdout!.on('data', (chunk) => (printed += chunk));
  await until(() => printed.includes('npm start'), 15_000, 'the provider’s instructions');
  // The variables exactly as the recipe prints them.
  const line = /^ {2}(.*) npm start$/m.exec(printed)![1];
  const env = Object.fromEntries([...line.matchAll(/(\w+)=(?:'([^']*)'|(\S+))/g)].map((m) => [m[1], m[2] ?? m[3]]));
  stack = await startStack('devidp', { auth: { ...env, OIDC_APP_URLS: 'http://localhost:3000/' } });
  await until(async () => (await call(stack.url, 'GET', '/api/auth/identity-providers')).body.data.providers[0]?.available, 10_000, 'the provider discovered');
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await stopChild(idp);
});

it('signs dev-user in through the provider npm run dev:idp starts, with the variables it prints', async () => {
  const issuer = /provider at (\S+)/.exec(printed)![1];
  const browser = new RedirectBrowser({ [API_HOST]: stack.url, [new URL(issuer).host]: '' });
  const landing = await browser.follow(`http://${API_HOST}/api/auth/user/oidc/dev/start`, { login: 'dev-user', password: 'any' });
  expect(landing.url.href).toBe('http://localhost:3000/');
  const refreshed = await browser.fetch(`http://${API_HOST}/api/auth/user/refresh`, { method: 'POST' });
  expect(refreshed.status).toBe(200);
  const token = ((await refreshed.json()) as { data: { accessToken: string } }).data.accessToken;
  const me = await call(stack.url, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${token}` } });
  expect(me.body.data.user).toMatchObject({ email: 'dev.user@example.com', name: 'Dev User' });
});
