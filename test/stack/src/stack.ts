// Starts the stack in-process for end-to-end tests: auth, desktop and the gateway on real ports (their
// built output, in the worker's own realm: services.ts says why), against the real MongoDB, Redis
// and RabbitMQ the global setup resolved, with names isolated per file and every log stream captured
// so tests can read the records back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunningService } from '@acct/shared';
import type { Redis } from '@acct/shared/redis';
import { EventTap } from '@acct/test-harness/event-tap';
import { isolatedNames, openTestRedis, removeIsolated, testUrls, type TestNames } from '@acct/test-harness/isolation';
import { testKeys, type TestKeys } from '@acct/test-harness/keys';
import { freePort } from '@acct/test-harness/ports';
import { checkAnswersOf, stopCheckingAnswersOf } from '@acct/test-harness/openapi';
import { notifierQueues, startTestNotifier, TestPublisher, type TestNotifier } from './notifier';
import * as built from './services';

const { createMemoryLogger } = built.shared;
const { loadAuthConfig, startAuth } = built.auth;
const { accountEventsQueue, loadDesktopConfig, startDesktop } = built.desktop;
const { loadGatewayConfig, startGateway } = built.gateway;

export { buildAccount, registerAndLogin } from '@acct/test-harness/factories';
export { stackRequire } from './services';
export type { TappedEvent } from '@acct/test-harness/event-tap';

export interface TestStack {
  url: string;
  names: TestNames;
  keys: TestKeys;
  /** Captured records: the gateway's request log, auth's audit records, and every service's own log. */
  logs: { request: Record<string, any>[]; audit: Record<string, any>[]; service: Record<string, any>[] };
  redis: Redis;
  events: EventTap;
  running: { auth: RunningService; desktop: RunningService; gateway: RunningService };
  /**
   * Starts one more replica of auth, desktop and the gateway (the new gateway in front of the new
   * auth and desktop), on the same stores and feed; stopped with the stack.
   */
  addReplicas(env?: Pick<StackOptions, 'auth' | 'desktop' | 'gateway'>): Promise<{ url: string; auth: RunningService; desktop: RunningService; gateway: RunningService }>;
  /** Present when started with `notifier: true`: a recording push sender and a mail folder. */
  notifier?: TestNotifier & { mailDir: string; publisher: TestPublisher };
  stop(): Promise<void>;
}

export interface StackOptions {
  auth?: Record<string, string>;
  desktop?: Record<string, string>;
  gateway?: Record<string, string>;
  notifier?: boolean;
  /** The notifier's own variables, over the test defaults (with `notifier: true`). */
  notifierEnv?: Record<string, string>;
  /**
   * A folder where each log stream is also written, a JSON record a line (`request.jsonl`,
   * `audit.jsonl`, `service.jsonl`): how the run's shared stack (shared.ts) shows its logs to the
   * test files of other processes.
   */
  logDir?: string;
}

const OUTBOX_TEST_POLL_MS = '500';

/** Fast, permissive defaults for tests; a test that checks a limit sets it. */
const AUTH_TEST_ENV = {
  BCRYPT_COST: '4',
  ADMIN_2FA_DEFAULT: 'false',
  RATE_LOGIN_IP_PER_MINUTE: '10000',
  RATE_LOGIN_FAILURES_PER_ACCOUNT_IP: '1000',
  RATE_LOGIN_FAILURES_PER_ACCOUNT: '1000',
  RATE_REGISTER_IP_PER_HOUR: '10000',
  RATE_FORGOT_IP_PER_HOUR: '10000',
  RATE_FORGOT_EMAIL_IP_PER_HOUR: '1000',
  RATE_FORGOT_EMAIL_PER_HOUR: '1000',
  RATE_RESET_IP_PER_HOUR: '10000',
  RATE_OTP_IP_PER_MINUTE: '10000',
  // A stack's queues are polled by findAndModify: each poll of an empty queue costs its service and
  // the MongoDB stand-in about 2 ms of CPU. At 50 ms each (outbox, app logouts, reset requests, and
  // the desktop's outbox) an idle stack took 180 ms of CPU a second, 40 ms at these (2026-11-29),
  // and the shared stack lives for the whole run. New events are published as they are written: the
  // outbox's poll only retries what could not be, and a logout's retries wait seconds anyway. The
  // reset queue is answered by its poll alone, so a mailed link waits 100 to 300 ms for it here.
  OUTBOX_POLL_MS: OUTBOX_TEST_POLL_MS,
  RESET_REQUEST_POLL_MS: '200',
};

export async function startStack(label: string, options: StackOptions = {}): Promise<TestStack> {
  const names = isolatedNames(label);
  const urls = testUrls();
  const keys = testKeys();
  // Kept in memory, and written to `logDir` too when it is given.
  const captured = (stream: string) => {
    const file = options.logDir && path.join(options.logDir, `${stream}.jsonl`);
    return createMemoryLogger('info', file ? (line) => fs.appendFileSync(file, line) : undefined);
  };
  const service = captured('service');
  const audit = captured('audit');
  const request = captured('request');
  const events = await EventTap.open(urls.amqp, names.exchange);
  // As an OpenID provider auth names its issuer, the gateway's origin: the gateway's port is chosen first.
  const issuerPort = options.auth?.OPENID_PROVIDER === 'true' && !options.auth.OPENID_ISSUER ? await freePort() : undefined;
  const issuerEnv: Record<string, string> = issuerPort ? { OPENID_ISSUER: `http://localhost:${issuerPort}` } : {};

  // Every replica of every service follows the stack's own revocation feed.
  const feed = { REDIS_URL: urls.redis, REVOCATION_STREAM: `${names.redisPrefix}revocations` };
  const startAuthReplica = (desktop: RunningService, env: Record<string, string> = {}) =>
    startAuth(
      loadAuthConfig({
        ...AUTH_TEST_ENV,
        ...feed,
        PORT: '0',
        HEALTH_PORT: '0',
        MONGO_URL: urls.mongo,
        MONGO_DB: `${names.mongoDb}_auth`,
        REDIS_PREFIX: names.redisPrefix,
        AMQP_URL: urls.amqp,
        EVENTS_EXCHANGE: names.exchange,
        JWT_PRIVATE_KEY: keys.privateKey,
        DESKTOP_URL: `http://127.0.0.1:${desktop.port}`,
        ...options.auth,
        ...issuerEnv,
        ...env,
      }),
      service.logger,
      { audit: audit.logger },
    );
  const startDesktopReplica = (env: Record<string, string> = {}) =>
    startDesktop(
      loadDesktopConfig({
        ...feed,
        PORT: '0',
        HEALTH_PORT: '0',
        MONGO_URL: urls.mongo,
        MONGO_DB: `${names.mongoDb}_desktop`,
        AMQP_URL: urls.amqp,
        EVENTS_EXCHANGE: names.exchange,
        QUEUE_PREFIX: names.queuePrefix,
        OUTBOX_POLL_MS: OUTBOX_TEST_POLL_MS,
        JWT_PUBLIC_KEY: keys.publicKey,
        ...options.desktop,
        ...env,
      }),
      service.logger,
    );
  const startGatewayReplica = (auth: RunningService, desktop: RunningService, env: Record<string, string> = {}) =>
    startGateway(
      loadGatewayConfig({
        ...feed,
        HOST: '127.0.0.1',
        PORT: '0',
        HEALTH_PORT: '0',
        AUTH_URL: `http://127.0.0.1:${auth.port}`,
        DESKTOP_URL: `http://127.0.0.1:${desktop.port}`,
        JWT_PUBLIC_KEY: keys.publicKey,
        ...options.gateway,
        ...env,
      }),
      service.logger,
      request.logger,
    );
  // Desktop first: auth asks it for a user's export.
  const desktop = await startDesktopReplica();
  const auth = await startAuthReplica(desktop);
  const gateway = await startGatewayReplica(auth, desktop, issuerPort ? { PORT: String(issuerPort) } : {});
  const replicas: RunningService[] = [];
  const replicaUrls: string[] = [];
  const redis = openTestRedis(urls.redis);
  let notifier: TestStack['notifier'];
  if (options.notifier) {
    const mailDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-mail-'));
    const publisher = await TestPublisher.open(names.exchange);
    notifier = Object.assign(await startTestNotifier(names, { mailDir, env: options.notifierEnv }), { mailDir, publisher });
  }
  const url = `http://127.0.0.1:${gateway.port}`;
  // Every answer a test gets from this stack must match openapi/openapi.yaml.
  checkAnswersOf(url);
  return {
    url,
    names,
    keys,
    logs: { request: request.records, audit: audit.records, service: service.records },
    redis,
    events,
    running: { auth, desktop, gateway },
    async addReplicas(env = {}) {
      const moreDesktop = await startDesktopReplica(env.desktop);
      const more = { auth: await startAuthReplica(moreDesktop, env.auth), desktop: moreDesktop };
      const moreGateway = await startGatewayReplica(more.auth, more.desktop, env.gateway);
      replicas.push(moreGateway, more.auth, more.desktop);
      const moreUrl = `http://127.0.0.1:${moreGateway.port}`;
      checkAnswersOf(moreUrl);
      replicaUrls.push(moreUrl);
      return { url: moreUrl, ...more, gateway: moreGateway };
    },
    notifier,
    async stop() {
      stopCheckingAnswersOf(url);
      for (const replicaUrl of replicaUrls) stopCheckingAnswersOf(replicaUrl);
      if (notifier) {
        await notifier.stop();
        await notifier.publisher.close();
        fs.rmSync(notifier.mailDir, { recursive: true, force: true });
      }
      for (const replica of replicas) await replica.stop();
      await gateway.stop();
      await auth.stop();
      await desktop.stop();
      await events.close();
      await redis.quit();
      // The databases, keys, exchange and queues of this stack (desktop's, and a notifier's).
      await removeIsolated(names, { queues: [...notifierQueues(names.queuePrefix), accountEventsQueue(names.queuePrefix)] });
    },
  };
}
