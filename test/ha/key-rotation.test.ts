// Rotating the signing key under load, end to end: users keep refreshing and reading /me while the
// stack moves through the runbook's three steps (docs/operations.md, "Rotating the signing key"),
// each a new set of replicas (auth, desktop and a gateway in front) started with the step's keys,
// the clients moved to it as a load balancer would. No request fails and no session ends.
import { generateKeyPairSync } from 'node:crypto';
import { call, cookieValue } from '@acct/test-harness/http-client';
import { registerAndLogin } from '@acct/test-harness/factories';
import { startStack, type TestStack } from '@acct/test-stack/stack';

const TTL_SECONDS = 30;
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('keyrotation', { auth: { ACCESS_TOKEN_TTL_SECONDS: String(TTL_SECONDS) } });
}, 60_000);
afterAll(() => stack?.stop());

const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid as string;

it('moves through add, promote and retire with 0 failed requests and 0 sessions ended', async () => {
  const next = generateKeyPairSync('ec', { namedCurve: 'P-256', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const old = stack.keys;
  let front = stack.url;
  const failures: string[] = [];
  const kids = new Set<string>();
  const users = await Promise.all(Array.from({ length: 6 }, () => registerAndLogin(stack)));
  let running = true;

  // Each user: read /me every 100 ms with its access token, refresh every second (well within the TTL).
  const load = users.map(async (user) => {
    let { accessToken, refresh } = user;
    let lastRefresh = Date.now();
    while (running) {
      const me = await call(front, 'GET', '/api/auth/user/me', { headers: { authorization: `Bearer ${accessToken}` } });
      if (me.status !== 200) failures.push(`me ${me.status} ${me.body?.code ?? ''} via ${front}`);
      if (Date.now() - lastRefresh > 1_000) {
        const refreshed = await call(front, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${refresh}` });
        if (refreshed.status !== 200) failures.push(`refresh ${refreshed.status} ${refreshed.body?.code ?? ''}`);
        else {
          accessToken = refreshed.body.data.accessToken;
          refresh = cookieValue(refreshed.setCookies, 'userRefreshToken') ?? refresh;
          kids.add(kidOf(accessToken));
          lastRefresh = Date.now();
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await pause(1_500);

  // 1. add: the new key verifies everywhere; the old one still signs.
  front = (await stack.addReplicas({ auth: { JWT_PRIVATE_KEY: next.privateKey + old.privateKey }, desktop: { JWT_PUBLIC_KEY: next.publicKey + old.publicKey }, gateway: { JWT_PUBLIC_KEY: next.publicKey + old.publicKey } })).url;
  await pause(2_000);
  const kidsAfterAdd = kids.size;
  // 2. promote: the new key signs.
  front = (await stack.addReplicas({ auth: { JWT_PRIVATE_KEY: old.privateKey + next.privateKey }, desktop: { JWT_PUBLIC_KEY: old.publicKey + next.publicKey }, gateway: { JWT_PUBLIC_KEY: old.publicKey + next.publicKey } })).url;
  // Every token of the old key expires (each user refreshed through the new signer long since).
  await pause(TTL_SECONDS * 1000 + 2_000);
  // 3. retire: the old key is gone everywhere.
  front = (await stack.addReplicas({ auth: { JWT_PRIVATE_KEY: next.privateKey }, desktop: { JWT_PUBLIC_KEY: next.publicKey }, gateway: { JWT_PUBLIC_KEY: next.publicKey } })).url;
  await pause(2_500);
  running = false;
  await Promise.all(load);

  expect(failures).toEqual([]);
  // The old key signed until the promotion, the new one after it.
  expect([kidsAfterAdd, kids.size]).toEqual([1, 2]);
  expect(stack.logs.audit.filter((r) => r.event === 'refresh_token_reuse')).toEqual([]);
}, 150_000);
