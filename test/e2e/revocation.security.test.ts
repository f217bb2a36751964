// An ended session ends everywhere within a second: two replicas of the gateway, auth and desktop,
// each answering from the memory the revocation feed keeps. The session is ended each of the six
// ways, through one replica; then every authenticated route is called with its access token through
// every gateway and at every auth and desktop replica directly: 401 session_revoked everywhere, while
// another live session of the same account keeps working.
import { parseRedisUrl } from '@acct/shared/redis';
import { call, cookieValue, type Answer } from '@acct/test-harness/http-client';
import { testUrls } from '@acct/test-harness/isolation';
import { startRedisServer } from '@acct/test-harness/redis-servers';
import { startTcpProxy, type TcpProxy } from '@acct/test-harness/tcp-proxy';
import { until } from '@acct/test-harness/until';
import { registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';
import { scaled } from '@acct/test-harness/time-scale';

let stack: TestStack;
/** Each gateway (the first in front of the first auth and desktop, the second of the second). */
let gateways: string[];
/** Each auth and desktop replica, reached directly (as the gateway does). */
let services: { auth: string[]; desktop: string[] };
let admin: { accessToken: string; refresh: string };

beforeAll(async () => {
  stack = await startStack('revocation');
  const second = await stack.addReplicas();
  gateways = [stack.url, second.url];
  const direct = (port: number) => `http://127.0.0.1:${port}`;
  services = { auth: [direct(stack.running.auth.port), direct(second.auth.port)], desktop: [direct(stack.running.desktop.port), direct(second.desktop.port)] };
  admin = await registerAndLogin(stack, 'admin');
});
afterAll(async () => {
  await stack.stop();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const device = { id: 'laptop-1', platform: 'linux', appVersion: '1.10.0' };

type Check = { where: string; ask: () => Promise<Answer> };

/** Every route that takes a user's access token, through every gateway and at every replica behind. */
function userChecks(token: string, ownSessionId: string): Check[] {
  const headers = bearer(token);
  const routes = (base: string, only?: 'auth' | 'desktop'): Check[] =>
    [
      only !== 'desktop' && { where: `GET ${base}/api/auth/user/me`, ask: () => call(base, 'GET', '/api/auth/user/me', { headers }) },
      only !== 'desktop' && { where: `GET ${base}/api/auth/user/me/avatar`, ask: () => call(base, 'GET', '/api/auth/user/me/avatar', { headers }) },
      only !== 'desktop' && { where: `GET ${base}/api/auth/user/sessions`, ask: () => call(base, 'GET', '/api/auth/user/sessions', { headers }) },
      only !== 'desktop' && { where: `POST ${base}/sign-out-others`, ask: () => call(base, 'POST', '/api/auth/user/sessions/sign-out-others', { headers }) },
      only !== 'desktop' && { where: `DELETE ${base}/sessions/:id`, ask: () => call(base, 'DELETE', `/api/auth/user/sessions/${ownSessionId}`, { headers }) },
      only !== 'auth' && { where: `POST ${base}/api/desktop/sync`, ask: () => call(base, 'POST', '/api/desktop/sync', { headers, body: { device } }) },
    ].filter((c): c is Check => Boolean(c));
  return [...gateways.flatMap((g) => routes(g)), ...services.auth.flatMap((a) => routes(a, 'auth')), ...services.desktop.flatMap((d) => routes(d, 'desktop'))];
}

function adminChecks(token: string, userId: string): Check[] {
  const headers = bearer(token);
  const routes = (base: string): Check[] => [
    { where: `GET ${base}/api/admin/users`, ask: () => call(base, 'GET', '/api/admin/users', { headers }) },
    { where: `GET ${base}/api/admin/users/:id`, ask: () => call(base, 'GET', `/api/admin/users/${userId}`, { headers }) },
    { where: `PUT ${base}/api/admin/users/:id`, ask: () => call(base, 'PUT', `/api/admin/users/${userId}`, { headers, body: { name: 'Taken over' } }) },
    { where: `GET ${base}/api/admin/users/:id/avatar`, ask: () => call(base, 'GET', `/api/admin/users/${userId}/avatar`, { headers }) },
  ];
  return [...gateways, ...services.auth].flatMap(routes);
}

/**
 * Asks every check until each answers 401 session_revoked, for at most a second after `endedAt`;
 * answers what still did not, and when the last one was refused.
 */
async function refusedEverywhere(checks: Check[], endedAt: number): Promise<{ notRefused: string[]; withinMs: number }> {
  let pending = checks;
  let last = 0;
  for (;;) {
    const answers = await Promise.all(pending.map(async (c) => ({ c, res: await c.ask() })));
    last = Date.now() - endedAt;
    pending = answers.filter(({ res }) => !(res.status === 401 && res.body?.code === 'session_revoked')).map(({ c }) => c);
    if (pending.length === 0 || Date.now() - endedAt > 1_000) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { notRefused: pending.map((c) => c.where), withinMs: last };
}

/** A live session's token still works through every gateway and replica. */
async function stillLive(token: string): Promise<number[]> {
  const headers = bearer(token);
  return Promise.all([
    ...[...gateways, ...services.auth].map(async (base) => (await call(base, 'GET', '/api/auth/user/me', { headers })).status),
    ...[...gateways, ...services.desktop].map(async (base) => (await call(base, 'POST', '/api/desktop/sync', { headers, body: { device } })).status),
  ]);
}

const sessionIdOf = (refresh: string) => refresh.split('.')[0];

/** A user with two sessions: `ended` is the one each way ends, `other` a second login. */
async function userWithTwoSessions() {
  const ended = await registerAndLogin(stack);
  const login = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: ended.account.email, password: ended.account.password } });
  return { ended, other: { accessToken: login.body.data.accessToken as string } };
}

describe('an ended session, through two replicas of every service', () => {
  it.each([
    ['logout', async (s: Awaited<ReturnType<typeof userWithTwoSessions>>) => {
      expect((await call(gateways[0], 'POST', '/api/auth/user/logout', { cookie: `userRefreshToken=${s.ended.refresh}` })).status).toBe(200);
    }],
    ['sign-out of the other sessions', async (s: Awaited<ReturnType<typeof userWithTwoSessions>>) => {
      expect((await call(gateways[1], 'POST', '/api/auth/user/sessions/sign-out-others', { headers: bearer(s.other.accessToken) })).status).toBe(200);
    }],
    ['deleting the session', async (s: Awaited<ReturnType<typeof userWithTwoSessions>>) => {
      expect((await call(gateways[1], 'DELETE', `/api/auth/user/sessions/${sessionIdOf(s.ended.refresh)}`, { headers: bearer(s.other.accessToken) })).status).toBe(200);
    }],
    ['refresh token reuse', async (s: Awaited<ReturnType<typeof userWithTwoSessions>>) => {
      const rotated = await call(gateways[0], 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${s.ended.refresh}` });
      expect(rotated.status).toBe(200);
      // The successor is used, so the first token is two rotations old: replaying it is reuse.
      const successor = cookieValue(rotated.setCookies, 'userRefreshToken');
      expect((await call(gateways[0], 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${successor}` })).status).toBe(200);
      expect((await call(gateways[1], 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${s.ended.refresh}` })).status).toBe(401);
    }],
  ])('when a session ends by %s, then its token is refused on every route of every replica within a second, and the other session works', async (_way, end) => {
    const sessions = await userWithTwoSessions();
    const checks = userChecks(sessions.ended.accessToken, sessionIdOf(sessions.ended.refresh));
    expect(await stillLive(sessions.ended.accessToken)).toEqual(Array(8).fill(200));
    await end(sessions);
    const endedAt = Date.now();
    const { notRefused, withinMs } = await refusedEverywhere(checks, endedAt);
    expect(notRefused).toEqual([]);
    expect(withinMs).toBeLessThan(scaled(1_000));
    expect(await stillLive(sessions.other.accessToken)).toEqual(Array(8).fill(200));
  });

  it.each([
    ['a password reset', async (user: Awaited<ReturnType<typeof registerAndLogin>>) => {
      await call(gateways[0], 'POST', '/api/auth/user/forgot-password', { body: { email: user.account.email } });
      const event = await stack.events.waitFor('account.password_reset.requested', (p) => p.accountId === user.id);
      const token = new URL(event.payload.resetUrl).searchParams.get('token');
      expect((await call(gateways[1], 'POST', '/api/auth/user/reset-password', { body: { token, newPassword: 'a brand new secret' } })).status).toBe(200);
    }],
    ['an admin disabling the account', async (user: Awaited<ReturnType<typeof registerAndLogin>>) => {
      expect((await call(gateways[1], 'PUT', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken), body: { disabled: true } })).status).toBe(200);
    }],
    ['an admin setting a new password', async (user: Awaited<ReturnType<typeof registerAndLogin>>) => {
      expect((await call(gateways[0], 'PUT', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken), body: { password: 'set by an admin 1' } })).status).toBe(200);
    }],
  ])('when %s ends every session, then each one\'s token is refused on every route of every replica within a second', async (_way, end) => {
    const user = await registerAndLogin(stack);
    const second = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: user.account.email, password: user.account.password } });
    const checks = [...userChecks(user.accessToken, sessionIdOf(user.refresh)), ...userChecks(second.body.data.accessToken, 'x'.repeat(22))];
    await end(user);
    const { notRefused, withinMs } = await refusedEverywhere(checks, Date.now());
    expect(notRefused).toEqual([]);
    expect(withinMs).toBeLessThan(scaled(1_000));
  });

  it('when an admin logs out, then their token loses every admin route on every replica within a second, and the gateway logs no actor for it', async () => {
    const other = await registerAndLogin(stack, 'admin', bearer(admin.accessToken));
    const user = await registerAndLogin(stack);
    expect((await call(gateways[1], 'GET', `/api/admin/users/${user.id}`, { headers: bearer(other.accessToken) })).status).toBe(200);
    expect((await call(gateways[0], 'POST', '/api/auth/admin/logout', { cookie: `adminRefreshToken=${other.refresh}` })).status).toBe(200);
    const { notRefused, withinMs } = await refusedEverywhere(adminChecks(other.accessToken, user.id), Date.now());
    expect(notRefused).toEqual([]);
    expect(withinMs).toBeLessThan(scaled(1_000));
    // Refused at the edge: the request log names no actor for the ended session.
    const refused = stack.logs.request.filter((r) => r.status === 401 && r.path === `/api/admin/users/${user.id}`);
    expect(refused.length).toBeGreaterThan(0);
    for (const record of refused) expect([record.actor_type, record.actor_id]).toEqual(['anonymous', undefined]);
    // The user was not renamed by the refused updates.
    expect((await call(gateways[0], 'GET', `/api/admin/users/${user.id}`, { headers: bearer(admin.accessToken) })).body.data.user.name).toBe(user.account.name);
  });
});

describe('a replica whose revocation feed is cut', () => {
  let faulty: TestStack;
  let proxy: TcpProxy;
  let desktopUrl: string;
  /** On a Redis Cluster or Sentinel (`npm run test:ha`), this stack gets a plain server of its own: a proxy cannot cut a cluster's redirections. */
  let own: { url: string; stop(): Promise<void> } | undefined;
  const outer = process.env.REDIS_URL;

  beforeAll(async () => {
    if (parseRedisUrl(testUrls().redis).kind !== 'single') {
      own = await startRedisServer();
      process.env.REDIS_URL = own.url;
    }
    const redis = new URL(testUrls().redis);
    proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    faulty = await startStack('revocation-cut', { desktop: { REDIS_URL: proxy.url('redis') } });
    desktopUrl = `http://127.0.0.1:${faulty.running.desktop.port}`;
  });
  afterAll(async () => {
    await faulty?.stop();
    await proxy?.close();
    process.env.REDIS_URL = outer;
    await own?.stop();
  });

  const syncAt = (token: string) => call(desktopUrl, 'POST', '/api/desktop/sync', { headers: bearer(token), body: { device } });

  it('when a session ends while the feed is cut, then past the 1 s bound the replica refuses its token (503, as it cannot read the store), and after the feed returns it answers 401 for it and 200 for a live one', async () => {
    const ended = await registerAndLogin(faulty);
    expect((await syncAt(ended.accessToken)).status).toBe(200);
    await proxy.cut();
    const cutAt = Date.now();
    expect((await call(faulty.url, 'POST', '/api/auth/user/logout', { cookie: `userRefreshToken=${ended.refresh}` })).status).toBe(200);
    let answer = await syncAt(ended.accessToken);
    while (answer.status === 200 && Date.now() - cutAt < 3_000) answer = await syncAt(ended.accessToken);
    expect(Date.now() - cutAt).toBeLessThan(scaled(1_000 + 500));
    expect([answer.status, answer.body.code]).toEqual([503, 'service_unavailable']);
    expect(faulty.logs.service.some((r) => r.level === 'warn' && /Revocation feed behind its bound/.test(r.message))).toBe(true);
    await proxy.restore();
    const live = await registerAndLogin(faulty);
    await until(async () => (await syncAt(live.accessToken)).status === 200, 5_000, 'desktop serves again');
    const after = await syncAt(ended.accessToken);
    expect([after.status, after.body.code]).toEqual([401, 'session_revoked']);
  });
});
