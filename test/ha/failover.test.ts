// Failover under load, on engines of its own: a steady stream of user logins (each with a registered
// device, so each sends a login push) and refreshes, while first the Redis master that holds a live
// session (of a Redis Cluster, then of a Sentinel group) is killed (SIGKILL), then the RabbitMQ node
// that leads the push queue. Every
// request that fails is retried by the client, as an app does. It must end with no refresh that lost
// its session and exactly one push per login; what failed on the way, and for how long, is the
// report (bench/results/ha-failover-<topology>.json and docs/operations.md).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { call, cookieValue } from '@acct/test-harness/http-client';
import { startRabbitCluster, type RabbitCluster } from '@acct/test-harness/rabbitmq-servers';
import { startRedisCluster, startRedisSentinel, type RedisProcess } from '@acct/test-harness/redis-servers';
import { scaled } from '@acct/test-harness/time-scale';
import { until } from '@acct/test-harness/until';
import { buildAccount, startStack, type TestStack } from '@acct/test-stack/stack';

const USERS = 12;
/** How long a client waits for one answer before it counts a failure and tries again, as an app does. */
const ANSWER_WITHIN_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A Redis topology to fail over: its URL, its nodes, and the port of the master that holds a key now. */
interface RedisEngine {
  url: string;
  nodes: RedisProcess[];
  masterOf(key: string): Promise<number>;
  stop(): Promise<void>;
}

const TOPOLOGIES: Array<{ slug: string; description: string; start(): Promise<RedisEngine> }> = [
  {
    slug: 'cluster',
    description: '6-node Redis Cluster (3 masters, 3 replicas), cluster-node-timeout 2000 ms, REDIS_WAIT_REPLICAS=1',
    start: () => startRedisCluster({ nodeTimeoutMs: 2_000 }),
  },
  {
    slug: 'sentinel',
    description: 'Redis master, 1 replica, 3 sentinels (quorum 2, down-after 1000 ms), REDIS_WAIT_REPLICAS=1',
    start: async () => {
      const group = await startRedisSentinel({ downAfterMs: 1_000 });
      return { ...group, masterOf: () => group.masterPort() };
    },
  },
];

let stack: TestStack;
const outer = { REDIS_URL: process.env.REDIS_URL, AMQP_URL: process.env.AMQP_URL };

/**
 * `work`, or a failure naming `what` when it takes longer than `givenMs` (on the run's time scale):
 * a step that hangs (a CLI call to a node whose peer just died, a stop) says which, rather than the
 * test running into its own timeout with no word of where it stood.
 */
async function within<T>(givenMs: number, what: string, work: Promise<T>): Promise<T> {
  const ms = scaled(givenMs);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Failure {
  at: number;
  op: 'login' | 'refresh';
  status: number | string;
}

/** Users logging in and refreshing, each retrying what failed until it succeeds. */
class Load {
  readonly failures: Failure[] = [];
  /** Each login answered 200, by the request id the client gave it, with when it was answered. */
  readonly logins = new Map<string, { user: number; at: number }>();
  /** Every login request sent, answered or not (a request that failed for the client may still have signed in). */
  readonly loginAttempts = new Set<string>();
  readonly sessions: Array<string | undefined> = Array(USERS).fill(undefined);
  lostSessions = 0;
  requests = 0;
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(private readonly accounts: Array<{ email: string; password: string }>) {
    this.loops = accounts.map((_, u) => this.user(u));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async user(u: number): Promise<void> {
    let step = 0;
    while (this.running) {
      // Every fourth step a new login (a push), else a refresh of the current session.
      if (!this.sessions[u] || step % 4 === 0) await this.login(u);
      else await this.refresh(u);
      step += 1;
      await sleep(25);
    }
  }

  private async login(u: number): Promise<void> {
    let requestId = '';
    const answer = await this.retry(
      'login',
      () => {
        // Each attempt its own request id: the push it causes carries it (RecordingPushSender).
        requestId = randomUUID();
        this.loginAttempts.add(requestId);
        return call(stack.url, 'POST', '/api/auth/user/login', { body: this.accounts[u], headers: { 'x-request-id': requestId }, timeoutMs: ANSWER_WITHIN_MS });
      },
      (a) => a.status === 200,
    );
    this.logins.set(requestId, { user: u, at: Date.now() });
    this.sessions[u] = cookieValue(answer.setCookies, 'userRefreshToken');
  }

  private async refresh(u: number): Promise<void> {
    const answer = await this.retry('refresh', () => call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${this.sessions[u]}`, timeoutMs: ANSWER_WITHIN_MS }), (a) => a.status === 200 || a.status === 401);
    if (answer.status === 401) {
      // The session is gone: the one thing a failover must never do.
      this.lostSessions += 1;
      this.sessions[u] = undefined;
      return;
    }
    this.sessions[u] = cookieValue(answer.setCookies, 'userRefreshToken');
  }

  /** Sends until `done`; each other answer (or a refused connection) is a failure, retried after 100 ms, for at most a minute. */
  private async retry<A extends { status: number }>(op: Failure['op'], send: () => Promise<A>, done: (a: A) => boolean): Promise<A> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      this.requests += 1;
      const answer = await send().catch((err: Error) => err);
      if (!(answer instanceof Error) && done(answer)) return answer;
      this.failures.push({ at: Date.now(), op, status: answer instanceof Error ? answer.message : answer.status });
      if (Date.now() > deadline) {
        const causes = stack.logs.service.filter((r) => /Dependency unavailable|Unhandled error/.test(r.message)).slice(-3).map((r) => String(r.err?.message ?? r.err));
        const redisSaid = stack.logs.service.filter((r) => /^Redis/.test(r.message) && r.message !== 'Redis connection error').slice(-6).map((r) => `${r.timestamp} ${r.message}`);
        throw new Error(`${op} kept failing for a minute; last answer ${this.failures.at(-1)?.status}; last causes logged: ${causes.join(' | ')}; Redis clients said: ${redisSaid.join(' | ')}`);
      }
      await sleep(100);
    }
  }
}

/** How many of each. */
function tally(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/**
 * What a client saw from `killedAt` on: failed requests, from when to when, and when service was
 * whole again; and what the services logged as the unavailable dependency behind each 503.
 */
function window(load: Load, killedAt: number, until: number) {
  const failed = load.failures.filter((f) => f.at >= killedAt && f.at < until);
  const last = failed.at(-1)?.at;
  const causes = stack.logs.service.filter((r) => r.message === 'Dependency unavailable' && Date.parse(r.timestamp ?? '') >= killedAt && Date.parse(r.timestamp ?? '') < until);
  return {
    failedRequests: failed.length,
    failingForMs: failed.length ? last! - failed[0].at : 0,
    fullServiceAfterMs: failed.length ? last! - killedAt : 0,
    answers: tally(failed.map((f) => `${f.op} ${f.status}`)),
    causes: tally(causes.map((r) => String(r.err?.message ?? r.err).slice(0, 120))),
  };
}

describe.each(TOPOLOGIES)('failover under load on a Redis $slug', ({ slug, description, start }) => {
  let redis: RedisEngine;
  let rabbit: RabbitCluster;

  // Two clusters started side by side on a busy 2-core machine, each allowed a fresh start on new
  // ports (withFreshStarts): one such retry must fit (a7c56bd's CI run ran out of 180 s).
  beforeAll(async () => {
    const [redisStart, rabbitStart] = await Promise.allSettled([start(), startRabbitCluster()]);
    if (redisStart.status === 'fulfilled') redis = redisStart.value;
    if (rabbitStart.status === 'fulfilled') rabbit = rabbitStart.value;
    if (!redis || !rabbit) throw [redisStart, rabbitStart].map((s) => (s.status === 'rejected' ? s.reason : undefined)).find(Boolean);
    process.env.REDIS_URL = redis.url;
    process.env.AMQP_URL = rabbit.url;
    stack = await startStack(`ha-${slug}`, {
      notifier: true,
      // The production lease (the test default is 500 ms): a Redis failover shorter than it costs no second push.
      notifierEnv: { CLAIM_TTL_MS: '30000' },
      // A session write is answered once a replica holds it; no session is evicted by the load itself.
      auth: { REDIS_WAIT_REPLICAS: '1', REDIS_WAIT_TIMEOUT_MS: '500', SESSION_MAX_PER_ACCOUNT: '100000' },
    });
  }, scaled(300_000));

  afterAll(async () => {
    try {
      if (stack) await within(60_000, 'stopping the stack', stack.stop());
    } finally {
      Object.assign(process.env, outer);
      // The engines go whatever happened above: no node of this run outlives it.
      await Promise.all([redis?.stop(), rabbit?.stop()]);
    }
  }, 120_000);

  // On the run's time scale, as each step's own budget is (within, until): on a slow machine the
  // steps may take longer than 300 s together, and a bare jest timeout would hide which one was slow.
  it('loses no session and no push, and sends no push twice, through a Redis master and a RabbitMQ leader killed', async () => {
    const accounts = Array.from({ length: USERS }, () => buildAccount());
    const tokens = accounts.map((_, u) => `ha-device-${u}-${stack.names.id}`);
    for (const [u, account] of accounts.entries()) {
      const registered = await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
      expect(registered.status).toBe(201);
      await stack.notifier!.publisher.publish('device.registered', { userId: registered.body.data.user.id, deviceId: `d${u}`, platform: 'linux', pushToken: tokens[u] });
    }
    await until(() => stack.notifier!.logs.filter((r) => r.event_type === 'device.registered' && r.outcome === 'stored').length === USERS, 20_000, 'every device stored');
    const logins = accounts.map((a) => ({ email: a.email, password: a.password }));
    const load = new Load(logins);
    const started = Date.now();
    await sleep(3_000);

    // 1. The Redis master of user 0's session, killed.
    const sessionKey = `${stack.names.redisPrefix}rs:{${load.sessions[0]!.split('.')[0]}}`;
    const redisVictim = await within(10_000, 'finding the Redis master of the session', redis.masterOf(sessionKey));
    const redisKilledAt = Date.now();
    redis.nodes.find((n) => n.port === redisVictim)!.kill();
    const promotedPort = await within(
      40_000,
      'waiting for a replica to be promoted',
      until(async () => {
        const port = await redis.masterOf(sessionKey).catch(() => undefined);
        return port !== undefined && port !== redisVictim && port;
      }, 30_000, 'a replica promoted'),
    );
    const promotedAt = Date.now();
    await sleep(8_000);
    const redisWindowEnd = Date.now();
    await within(30_000, 'restarting the killed Redis master', redis.nodes.find((n) => n.port === redisVictim)!.restart());

    // 2. The RabbitMQ node that leads the push queue, killed.
    const pushQueue = `${stack.names.queuePrefix}notifier.push`;
    const rabbitVictim = await within(50_000, 'finding the leader of the push queue', rabbit.leaderOf(pushQueue));
    expect(rabbitVictim).toBeDefined();
    const rabbitKilledAt = Date.now();
    await within(10_000, 'killing the RabbitMQ leader', rabbit.nodes.find((n) => n.name === rabbitVictim)!.kill());
    const newLeader = await within(
      90_000,
      'waiting for a new leader of the push queue',
      until(async () => {
        const leader = await rabbit.leaderOf(pushQueue);
        return leader !== undefined && leader !== rabbitVictim && leader;
      }, 60_000, 'a new leader of the push queue'),
    );
    const leaderAt = Date.now();
    await sleep(12_000);
    const rabbitWindowEnd = Date.now();
    // Each user's request in flight is answered or given up on within ANSWER_WITHIN_MS.
    await within(2 * ANSWER_WITHIN_MS, 'stopping the load', load.stop());
    const stopped = Date.now();

    // Every login's push arrives, once: pushes are matched to logins by the login's request id.
    const pushes = () => stack.notifier!.push.sent.filter((s) => s.requestId !== undefined && load.loginAttempts.has(s.requestId));
    const unpushed = () => [...load.logins.keys()].filter((id) => !pushes().some((p) => p.requestId === id));
    /** Where the pushes stopped, and what the notifier and the services said that was not info. */
    const diagnosis = () => {
      const since = (at: number) => `${((at - started) / 1000).toFixed(1)} s`;
      const missing = unpushed().map((id) => load.logins.get(id)!.at);
      // What was not info, and what was said of RabbitMQ at any level, from just before the first
      // login left without a push: the first records (what went wrong) and the last (where it stayed).
      const from = Math.min(...missing) - 2_000;
      const said = (records: Array<Record<string, any>>) => {
        const told = records.filter(
          (r) => Date.parse(r.timestamp ?? '') >= from && (['warn', 'error', 'fatal'].includes(String(r.level)) || /RabbitMQ|consumer|channel/i.test(String(r.message ?? r.msg))),
        );
        return [...new Set([...told.slice(0, 8), ...told.slice(-4)])].map((r) => `${r.timestamp ?? ''} ${r.level} ${r.message ?? r.msg} ${String(r.reason ?? r.err?.message ?? r.node ?? '')}`.slice(0, 200));
      };
      return [
        `load from 0 s; Redis master killed at ${since(redisKilledAt)}, RabbitMQ leader at ${since(rabbitKilledAt)}, load stopped at ${since(stopped)}`,
        `logins without a push answered from ${since(Math.min(...missing))} to ${since(Math.max(...missing))}; last push sent at ${since(Math.max(0, ...pushes().map((p) => p.at)))}`,
        `notifier: ${said(stack.notifier!.logs).join(' || ') || 'nothing'}`,
        `services: ${said(stack.logs.service).join(' || ') || 'nothing'}`,
        `services, counted: ${JSON.stringify(
          tally(
            stack.logs.service
              .filter((r) => Date.parse(r.timestamp ?? '') >= from && (String(r.level) !== 'info' || /RabbitMQ|outbox|publish/i.test(String(r.message ?? ''))))
              .map((r) => `${r.service ?? ''} ${r.message ?? ''} ${String(r.reason ?? '').slice(0, 60)}`),
          ),
        )}`,
      ].join('\n');
    };
    const pushedInTime = await until(() => unpushed().length === 0, 90_000, 'a push for every login').catch(async (err: Error) => err);
    if (pushedInTime instanceof Error) {
      throw new Error(`a push for every login (${unpushed().length} of ${load.logins.size} missing)\n${diagnosis()}\nqueues ${await rabbit.describeQueues(stack.names.queuePrefix)}`);
    }
    await sleep(2_000);
    const pushed = tally(pushes().map((p) => p.requestId!));
    const duplicatePushes = Object.values(pushed).reduce((sum, n) => sum + n - 1, 0);
    // Logins the server completed while the client saw a failure (its answer was lost): pushed, rightly.
    const completedUnseen = Object.keys(pushed).filter((id) => !load.logins.has(id)).length;
    const pushedToOthers = pushes().filter((p) => !p.tokens.includes(tokens[load.logins.get(p.requestId!)?.user ?? -1]) && load.logins.has(p.requestId!)).length;
    const lags = pushes().filter((p) => load.logins.has(p.requestId!)).map((p) => p.at - load.logins.get(p.requestId!)!.at);
    const drainedAt = Math.max(...pushes().map((p) => p.at));

    const report = {
      measuredAt: new Date().toISOString(),
      command: 'npm run test:ha -- test/ha/failover',
      topology: slug,
      machine: `${process.platform} ${process.arch}, node ${process.version}`,
      load: { users: USERS, seconds: Math.round((stopped - started) / 1000), requests: load.requests, logins: load.logins.size, refreshes: load.requests - load.failures.length - load.logins.size },
      redis: {
        topology: description,
        killed: `master on port ${redisVictim} (SIGKILL)`,
        replicaPromotedAfterMs: promotedAt - redisKilledAt,
        promotedPort,
        ...window(load, redisKilledAt, redisWindowEnd),
      },
      rabbitmq: {
        topology: '3-node RabbitMQ cluster, quorum queues',
        killed: `${rabbitVictim}, leader of the push queue (SIGKILL)`,
        newLeaderAfterMs: leaderAt - rabbitKilledAt,
        newLeader,
        ...window(load, rabbitKilledAt, rabbitWindowEnd),
        pushLagMaxMs: Math.max(...lags),
        lastPushAfterLoadStoppedMs: drainedAt - stopped,
      },
      // What a 500 was, when one was answered (none may be: an outage is a 503 with Retry-After).
      unhandledErrors: tally(stack.logs.service.filter((r) => r.message === 'Unhandled error').map((r) => String(r.err?.message ?? r.err))),
      // Clients ioredis gave up on during the run, connected again by connectRedis (docs/operations.md: High availability).
      redisClientsRevived: [...stack.logs.service, ...stack.notifier!.logs].filter((r) => r.message === 'Redis client ended without being closed; connecting again').length,
      refreshesThatLostTheirSession: load.lostSessions,
      logins: load.logins.size,
      loginsWithoutPush: unpushed().length,
      pushesDelivered: pushes().length,
      duplicatePushes,
      loginsCompletedWhileTheClientSawAFailure: completedUnseen,
    };
    fs.mkdirSync(path.resolve(__dirname, '../../bench/results'), { recursive: true });
    fs.writeFileSync(path.resolve(__dirname, `../../bench/results/ha-failover-${slug}.json`), `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`\nha failover report (${slug}):\n${JSON.stringify(report, null, 2)}\n`);

    expect(load.lostSessions).toBe(0);
    expect(load.failures.filter((f) => f.status === 500)).toEqual([]);
    expect({ loginsWithoutPush: unpushed().length, duplicatePushes, pushedToOthers }).toEqual({ loginsWithoutPush: 0, duplicatePushes: 0, pushedToOthers: 0 });
  }, scaled(300_000));
});
