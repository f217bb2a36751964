// Every Redis script, MULTI and pipeline of the stack, run on a real 6-node Redis Cluster: a command
// whose keys span two slots fails there (CROSSSLOT, or ioredis' own refusal of a cross-slot
// pipeline), so each store's whole life on a cluster proves its keys share their slot. The test
// also reads the sources for every script they define and fails when one did not run here.
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { closeRedis, connectRedis, openRevocationFeed, type Redis } from '@acct/shared/redis';
import { startRedisCluster, type RedisClusterServers } from '@acct/test-harness/redis-servers';
import { RedisSessions } from '../src/data-access/redis-sessions';
import { RedisSignInFlows } from '../src/data-access/redis-sign-in-flows';
import { RedisLoginAttempts } from '../src/data-access/redis-login-attempts';
import { RedisLocks } from '../src/data-access/redis-locks';
import { RedisRateLimits } from '../src/data-access/redis-rate-limits';
import { RedisCeremonies } from '../src/data-access/redis-ceremonies';
import { IdempotencyStore } from '../../notifier/src/data-access/idempotency-store';
import { RedisOpenIdStore } from '../src/data-access/redis-openid-store';
import { RedisAppConsents, RedisAppGrants, RedisAppSessionWatch } from '../src/data-access/redis-app-grants';

const logger = pino({ level: 'silent' });
let cluster: RedisClusterServers;
let redis: Redis;
/** Scripts defined on the client, and those that ran to an answer. */
const defined = new Set<string>();
const ran = new Set<string>();

/** Records each script the stores define (and `eval`), and each that answered without an error. */
function recordScripts(client: Redis): void {
  const target = client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const define = client.defineCommand.bind(client);
  client.defineCommand = ((name: string, definition: { numberOfKeys?: number; lua: string }) => {
    define(name, definition);
    defined.add(name);
    const call = target[name];
    target[name] = (...args: unknown[]) => call.apply(client, args).then((reply) => (ran.add(name), reply));
  }) as typeof client.defineCommand;
  const evaluate = target.eval;
  target.eval = (...args: unknown[]) => evaluate.apply(client, args).then((reply) => (ran.add('eval'), reply));
}

beforeAll(async () => {
  cluster = await startRedisCluster();
  redis = await connectRedis(cluster.url, logger, { keyPrefix: 'auth:' });
  recordScripts(redis);
}, 60_000);

afterAll(async () => {
  // closeRedis, not quit: a client connectRedis made and that ends without being closed connects again.
  if (redis) await closeRedis(redis);
  await cluster?.stop();
});

// After every test (the order is random): each script the sources define ran on the cluster, so a
// script added without a cluster run here fails the suite.
afterAll(() => {
  const root = path.resolve(__dirname, '../../..');
  const sources = ['services/auth/src', 'services/notifier/src', 'services/gateway/src', 'services/desktop/src', 'libs/shared/src'].flatMap((dir) => listTs(path.join(root, dir)));
  const inSources = new Set<string>();
  for (const file of sources) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/defineCommand\('([^']+)'/g)) inSources.add(match[1]);
    if (/redis\.eval\(/.test(text)) inSources.add('eval');
  }
  // rate-limiter-flexible defines its own script on the client: it is among `defined`.
  const missing = [...new Set([...inSources, ...defined])].filter((name) => !ran.has(name));
  if (inSources.size < 6 || missing.length > 0) throw new Error(`scripts that did not run on the cluster: ${missing.join(', ') || '(the sources define too few: the scan is broken)'}`);
});

describe('the stores on a Redis Cluster', () => {
  it('connects to a cluster from its seed nodes and spreads keys over all three masters', async () => {
    const owners = new Set(await Promise.all(['rs:{a}', 'rs:{b}', 'rs:{c}', 'rs:{d}', 'rs:{e}', 'rs:{f}', 'rs:{g}', 'rs:{h}'].map((k) => cluster.masterOf(`auth:${k}`))));
    expect(owners.size).toBeGreaterThan(1);
    await redis.set('probe:{x}', '1', 'PX', 1000);
    expect(await redis.get('probe:{x}')).toBe('1');
  });

  it('runs a session through its whole life: create, rotate, grace, reuse, list, revoke, epoch', async () => {
    const published: string[] = [];
    const sessions = new RedisSessions(
      redis,
      { idleTtlMs: 60_000, graceMs: 10_000, lateRetryMs: 300_000, maxAgeMs: { user: 3_600_000, admin: 600_000 }, maxPerAccount: 2, revocationRetentionMs: 960_000, replicaAck: { replicas: 1, timeoutMs: 1_000 } },
      { publish: async (ids) => void published.push(...ids) },
    );
    const first = await sessions.create({ kind: 'user', accountId: 'c1', role: 'user', credentialEpoch: 0 });
    if (first === 'superseded') throw new Error('superseded');
    const rotated = await sessions.rotate('user', first.token);
    expect(rotated.outcome).toBe('rotated');
    expect((await sessions.rotate('user', first.token)).outcome).toBe('grace');
    expect(await sessions.isActive('user', first.sessionId, 'c1')).toBe(true);
    expect(await sessions.list('user', 'c1')).toHaveLength(1);
    const second = await sessions.create({ kind: 'user', accountId: 'c1', role: 'user', credentialEpoch: 0 });
    if (second === 'superseded' || rotated.outcome !== 'rotated') throw new Error('unexpected');
    expect(await sessions.revoke('user', second.token)).toEqual({ sessionId: second.sessionId, accountId: 'c1' });
    expect(await sessions.revokeAll('user', 'c1', 1)).toBe(1);
    expect(await sessions.isActive('user', first.sessionId, 'c1')).toBe(false);
    expect(published).toEqual(expect.arrayContaining([first.sessionId, second.sessionId]));
    // A replayed token after the grace window: reuse detection, on the cluster too.
    const third = await sessions.create({ kind: 'user', accountId: 'c2', role: 'user', credentialEpoch: 0 });
    if (third === 'superseded') throw new Error('superseded');
    const next = await sessions.rotate('user', third.token);
    if (next.outcome !== 'rotated') throw new Error(next.outcome);
    await sessions.rotate('user', next.token);
    expect((await sessions.rotate('user', third.token)).outcome).toBe('reused');
  });

  it('takes a second step through wrong and right codes, with its failure counters on one slot', async () => {
    const flows = new RedisSignInFlows(redis, { secret: 'a test secret of enough length', ttlMs: { second_step: 60_000, passkey: 60_000, provider: 60_000, email: 60_000 }, maxAttempts: 1 });
    const step = { purpose: 'second_step' as const, kind: 'admin' as const, accountId: 'o1', credentialEpoch: 0, proven: ['password' as const], next: ['email_code' as const] };
    const opened = await flows.open(step, { mailCode: true });
    expect(await flows.attachWebauthn(opened.token, 'challenge')).toEqual({ kind: 'admin', accountId: 'o1' });
    expect(await flows.attempt(opened.token, async () => false)).toEqual({ outcome: 'wrong_code' });
    const again = await flows.open(step, { mailCode: true });
    // One wrong code of one allowed: the next guess waits (the counters are read together).
    expect((await flows.attempt(again.token, async (c) => c.isMailedCode(again.code!))).outcome).toBe('throttled');
    await redis.del('otp-fail:{admin:o1}', 'otp-fail-at:{admin:o1}');
    expect((await flows.attempt(again.token, async (c) => c.isMailedCode(again.code!))).outcome).toBe('verified');
    await flows.cancelFor('admin', 'o1');
    await flows.cancel(again.token);
  });

  it('arms an email sign-in and takes its link, then takes another by its code, with the address\'s counters on one slot', async () => {
    const flows = new RedisSignInFlows(redis, { secret: 'a test secret of enough length', ttlMs: { second_step: 60_000, passkey: 60_000, provider: 60_000, email: 60_000 }, maxAttempts: 5 });
    const asked = { purpose: 'email' as const, kind: 'user' as const, proven: [], next: ['email_sign_in' as const], email: 'cluster@example.com' };
    const first = await flows.open(asked);
    const mailed = await flows.arm(first.token.split('.')[0], { accountId: 'c1', credentialEpoch: 0 });
    if (!mailed) throw new Error('not armed');
    expect((await flows.takeLink(mailed.link, undefined)).outcome).toBe('other_browser');
    expect(await flows.takeLink(mailed.link, first.token)).toMatchObject({ outcome: 'taken', flow: { accountId: 'c1' } });
    const second = await flows.open(asked);
    const code = (await flows.arm(second.token.split('.')[0], { accountId: 'c1', credentialEpoch: 0 }))!.code;
    expect(await flows.enterCode(second.token, code === '000000' ? '111111' : '000000')).toEqual({ outcome: 'wrong_code' });
    expect((await flows.enterCode(second.token, code)).outcome).toBe('verified');
  });

  it('reserves, releases and clears login attempts across an account’s keys', async () => {
    const attempts = new RedisLoginAttempts(redis, { perAccountAndIp: 1, perAccount: 5, windowMs: 60_000 });
    expect(await attempts.reserve('user', 'la@example.com', '203.0.113.9')).toEqual({ allowed: true });
    expect((await attempts.reserve('user', 'la@example.com', '203.0.113.9')).allowed).toBe(false);
    await attempts.release('user', 'la@example.com', '203.0.113.9');
    await attempts.succeed('user', 'la@example.com', '203.0.113.9');
    expect(await attempts.isKnown('user', 'la@example.com', '203.0.113.9')).toBe(true);
  });

  it('runs the lock, the rate limits, the ceremonies, the identity flows and the notifier’s idempotency claims', async () => {
    const locks = new RedisLocks(redis);
    expect(await locks.run('last-admin', async () => 'done')).toBe('done');
    const limits = new RedisRateLimits(redis, { loginIpPerMinute: 1, registerIpPerHour: 1, forgotIpPerHour: 1, forgotEmailIpPerHour: 1, forgotEmailPerHour: 1, resetIpPerHour: 1, otpIpPerMinute: 1, passkeyOptionsIpPerMinute: 1, passwordCheckIpPerMinute: 1, emailLinkIpPerHour: 1, openIdStartIpPerMinute: 1, botCheckIpPerMinute: 1 });
    expect((await limits.consume('loginIp', '203.0.113.5')).allowed).toBe(true);
    expect((await limits.consume('loginIp', '203.0.113.5')).allowed).toBe(false);
    const ceremonies = new RedisCeremonies(redis, { ttlMs: 60_000, stepUpMs: 60_000 });
    await ceremonies.beginRegistration('sid', { challenge: 'c', kind: 'user', accountId: 'u1', credentialEpoch: 0 });
    expect(await ceremonies.finishRegistration('sid')).toMatchObject({ challenge: 'c', kind: 'user' });
    await ceremonies.markProof('sid', 3);
    expect(await ceremonies.recentProof('sid')).toBe(3);
    const flows = new RedisSignInFlows(redis, { secret: 'a test secret of enough length', ttlMs: { second_step: 60_000, passkey: 60_000, provider: 60_000, email: 60_000 }, maxAttempts: 5 });
    const provider = { id: 'p', intent: 'sign_in' as const, nonce: 'n', codeVerifier: 'v', returnTo: 'https://app.example/' };
    const state = 'S'.repeat(43);
    await flows.open({ purpose: 'provider', kind: 'user', proven: [], next: ['provider_callback'], provider }, { key: { id: state, secret: 'b' } });
    expect(await flows.take('provider', { id: state, secret: 'another' })).toMatchObject({ outcome: 'other_browser' });
    expect(await flows.take('provider', { id: state, secret: 'b' })).toMatchObject({ outcome: 'taken', flow: { provider } });
    expect(await flows.take('provider', { id: state, secret: 'b' })).toEqual({ outcome: 'unknown' });
    const claims = new IdempotencyStore(redis, { claimTtlMs: 10_000, doneTtlSeconds: 60 });
    const claim = await claims.claim('e1');
    if (claim.status !== 'claimed') throw new Error(claim.status);
    await claims.release('e1', claim.token);
    expect((await claims.claim('e1')).status).toBe('claimed');
  });

  it("keeps the OpenID provider's records (consumed, indexed, revoked by grant) and the apps' grants", async () => {
    const codes = new RedisOpenIdStore(redis, 'AuthorizationCode');
    const sessions = new RedisOpenIdStore(redis, 'Session');
    await codes.upsert('code-1', { grantId: 'g1', accountId: 'u1' }, 60);
    // The grant's index lives as long as its longest record: set by the first, lengthened by a longer one, never shortened.
    const index = 'openid:grant:AuthorizationCode:g1';
    expect(await redis.ttl(index)).toBeGreaterThan(50);
    await codes.upsert('code-2', { grantId: 'g1', accountId: 'u1' }, 600);
    expect(await redis.ttl(index)).toBeGreaterThan(590);
    await codes.upsert('code-3', { grantId: 'g1', accountId: 'u1' }, 30);
    expect(await redis.ttl(index)).toBeGreaterThan(590);
    expect(await redis.lrange(index, 0, -1)).toEqual(['openid:AuthorizationCode:code-1', 'openid:AuthorizationCode:code-2', 'openid:AuthorizationCode:code-3']);
    await codes.consume('code-1');
    expect((await codes.find('code-1'))?.consumed).toEqual(expect.any(Number));
    await sessions.upsert('s1', { uid: 'uid-1', accountId: 'u1' }, 60);
    expect(await sessions.findByUid('uid-1')).toMatchObject({ accountId: 'u1' });
    await codes.revokeByGrantId('g1');
    expect(await codes.find('code-1')).toBeUndefined();
    const grants = new RedisAppGrants(redis);
    await grants.save('g1', { kind: 'user', accountId: 'u1', appId: 'desktop', appName: 'Desktop' }, 60_000);
    expect(await grants.attachSession('g1', 'sid-1', 'refresh-1')).toBe(true);
    expect(await grants.attachSession('g1', 'sid-2', 'refresh-2')).toBe(false);
    await grants.updateSessionToken('g1', 'refresh-3');
    expect(await grants.find('g1')).toMatchObject({ sessionId: 'sid-1', sessionToken: 'refresh-3' });
    expect(await grants.remove('g1')).toMatchObject({ appId: 'desktop' });
    await grants.updateSessionToken('g1', 'refresh-4');
    expect(await grants.find('g1')).toBeUndefined();
    // The watches for back-channel logout: an end claims them once, 'all' takes every one, a forgotten one is gone.
    const watch = new RedisAppSessionWatch(redis, 60_000);
    for (const sessionId of ['s-1', 's-2', 's-3']) await watch.watch('user', 'u1', sessionId, { appId: 'desktop', sid: `op-${sessionId}` });
    expect(await watch.claim('user', 'u1', ['s-1', 's-unknown'])).toEqual([{ sessionId: 's-1', appId: 'desktop', sid: 'op-s-1' }]);
    expect(await watch.claim('user', 'u1', ['s-1'])).toEqual([]);
    await watch.forget('user', 'u1', 's-2');
    expect(await watch.claim('user', 'u1', 'all')).toEqual([{ sessionId: 's-3', appId: 'desktop', sid: 'op-s-3' }]);
    expect(await watch.claim('user', 'u1', 'all')).toEqual([]);
    // An app's grants, for its deletion; and what people allowed apps, added up and forgotten.
    await grants.save('g2', { kind: 'user', accountId: 'u1', appId: 'partner', appName: 'Partner' }, 60_000);
    await grants.save('g3', { kind: 'user', accountId: 'u2', appId: 'partner', appName: 'Partner' }, 60_000);
    expect((await grants.ofApp('partner')).sort()).toEqual(['g2', 'g3']);
    await grants.remove('g2');
    expect(await grants.ofApp('partner')).toEqual(['g3']);
    const consents = new RedisAppConsents(redis);
    await consents.allow('user', 'u1', { id: 'partner', name: 'Partner' }, ['openid', 'email']);
    await consents.allow('user', 'u1', { id: 'partner', name: 'Partner' }, ['openid', 'profile']);
    expect(await consents.find('user', 'u1', 'partner')).toMatchObject({ appName: 'Partner', scopes: ['openid', 'email', 'profile'] });
    await consents.allow('user', 'u1', { id: 'reports', name: 'Reports' }, ['openid']);
    expect((await consents.list('user', 'u1')).map((c) => c.appId).sort()).toEqual(['partner', 'reports']);
    await consents.forget('user', 'u1', 'partner');
    expect(await consents.find('user', 'u1', 'partner')).toBeUndefined();
    await consents.forget('user', 'u1');
    expect(await consents.list('user', 'u1')).toEqual([]);
  });

  it('follows and publishes the revocation feed on the cluster', async () => {
    const feed = await openRevocationFeed({ REDIS_URL: cluster.url, REVOCATION_STREAM: 'auth:revocations:cluster-test', REVOCATION_MAX_STALENESS_MS: 1000 }, logger);
    try {
      await feed.publish(['s-ended'], { retentionMs: 60_000 });
      expect(await feed.isRevoked('s-ended')).toBe(true);
    } finally {
      await feed.close();
    }
  });
});

function listTs(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listTs(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}
