// Starts the stack in-process for end-to-end tests: auth, desktop and the gateway on real ports,
// against the real MongoDB, Redis and RabbitMQ the global setup resolved, with names isolated per
// file and every log stream captured so tests can read the records back.
import { generateKeyPairSync } from 'node:crypto';
import amqp from 'amqplib';
import Redis from 'ioredis';
import { createMemoryLogger, type RunningService } from '@acct/shared';
import { loadAuthConfig, startAuth } from '@acct/auth';
import { loadDesktopConfig, startDesktop } from '@acct/desktop';
import { loadGatewayConfig, startGateway } from '@acct/gateway';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isolatedNames, deleteRedisPrefix, testUrls, type TestNames } from './isolation';
import { startTestNotifier, TestPublisher, type TestNotifier } from './notifier';
import { checkAnswersOf, stopCheckingAnswersOf } from './openapi';

export interface TestStack {
  url: string;
  names: TestNames;
  keys: { privateKey: string; publicKey: string };
  /** Captured records: the gateway's request log, auth's audit records, and every service's own log. */
  logs: { request: Record<string, any>[]; audit: Record<string, any>[]; service: Record<string, any>[] };
  redis: Redis;
  events: EventTap;
  running: { auth: RunningService; desktop: RunningService; gateway: RunningService };
  /** Present when started with `notifier: true`: a recording push sender and a mail folder. */
  notifier?: TestNotifier & { mailDir: string; publisher: TestPublisher };
  stop(): Promise<void>;
}

export interface StackOptions {
  auth?: Record<string, string>;
  desktop?: Record<string, string>;
  gateway?: Record<string, string>;
  notifier?: boolean;
}

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
  OUTBOX_POLL_MS: '50',
  RESET_REQUEST_POLL_MS: '50',
};

export async function startStack(label: string, options: StackOptions = {}): Promise<TestStack> {
  const names = isolatedNames(label);
  const urls = testUrls();
  const keys = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const service = createMemoryLogger('info');
  const audit = createMemoryLogger('info');
  const request = createMemoryLogger('info');
  const events = await EventTap.open(urls.amqp, names.exchange);

  const auth = await startAuth(
    loadAuthConfig({
      ...AUTH_TEST_ENV,
      PORT: '0',
      HEALTH_PORT: '0',
      MONGO_URL: urls.mongo,
      MONGO_DB: `${names.mongoDb}_auth`,
      REDIS_URL: urls.redis,
      REDIS_PREFIX: names.redisPrefix,
      AMQP_URL: urls.amqp,
      EVENTS_EXCHANGE: names.exchange,
      JWT_PRIVATE_KEY: keys.privateKey,
      ...options.auth,
    }),
    service.logger,
    { audit: audit.logger },
  );
  const desktop = await startDesktop(
    loadDesktopConfig({
      PORT: '0',
      HEALTH_PORT: '0',
      MONGO_URL: urls.mongo,
      MONGO_DB: `${names.mongoDb}_desktop`,
      AMQP_URL: urls.amqp,
      EVENTS_EXCHANGE: names.exchange,
      OUTBOX_POLL_MS: '50',
      JWT_PUBLIC_KEY: keys.publicKey,
      ...options.desktop,
    }),
    service.logger,
  );
  const gateway = await startGateway(
    loadGatewayConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      HEALTH_PORT: '0',
      AUTH_URL: `http://127.0.0.1:${auth.port}`,
      DESKTOP_URL: `http://127.0.0.1:${desktop.port}`,
      JWT_PUBLIC_KEY: keys.publicKey,
      ...options.gateway,
    }),
    service.logger,
    request.logger,
  );
  const redis = new Redis(urls.redis);
  let notifier: TestStack['notifier'];
  if (options.notifier) {
    const mailDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-mail-'));
    const publisher = await TestPublisher.open(names.exchange);
    notifier = Object.assign(await startTestNotifier(names, { mailDir }), { mailDir, publisher });
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
    notifier,
    async stop() {
      stopCheckingAnswersOf(url);
      if (notifier) {
        await notifier.stop();
        await notifier.publisher.deleteQueues(names.queuePrefix);
        await notifier.publisher.close();
        fs.rmSync(notifier.mailDir, { recursive: true, force: true });
      }
      await gateway.stop();
      await auth.stop();
      await desktop.stop();
      await events.close();
      await deleteRedisPrefix(redis, names.redisPrefix);
      await redis.quit();
      const mongoose = (await import('mongoose')).default;
      for (const db of [`${names.mongoDb}_auth`, `${names.mongoDb}_desktop`, `${names.mongoDb}_notifier`]) {
        const conn = await mongoose.createConnection(urls.mongo, { dbName: db }).asPromise();
        await conn.dropDatabase();
        await conn.close();
      }
    },
  };
}

export interface TappedEvent {
  routingKey: string;
  messageId?: string;
  payload: Record<string, any>;
}

/** A temporary queue bound to every key of the test's exchange; collects what reaches RabbitMQ. */
export class EventTap {
  readonly received: TappedEvent[] = [];
  private constructor(private readonly connection: Awaited<ReturnType<typeof amqp.connect>>) {}

  static async open(url: string, exchange: string): Promise<EventTap> {
    const connection = await amqp.connect(url);
    const tap = new EventTap(connection);
    const channel = await connection.createChannel();
    await channel.assertExchange(exchange, 'topic', { durable: true });
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    await channel.bindQueue(queue, exchange, '#');
    await channel.consume(queue, (msg) => {
      if (!msg) return;
      tap.received.push({ routingKey: msg.fields.routingKey, messageId: msg.properties.messageId, payload: JSON.parse(msg.content.toString()) });
      channel.ack(msg);
    });
    return tap;
  }

  /** Waits for an event that matches; fails the test with what did arrive if none does in time. */
  async waitFor(routingKey: string, match: (payload: Record<string, any>) => boolean = () => true, timeoutMs = 5_000): Promise<TappedEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find((e) => e.routingKey === routingKey && match(e.payload));
      if (found) return found;
      if (Date.now() > deadline) {
        throw new Error(`no ${routingKey} event within ${timeoutMs} ms; received: ${this.received.map((e) => e.routingKey).join(', ') || 'nothing'}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async close(): Promise<void> {
    await this.connection.close().catch(() => undefined);
  }
}

let counter = 0;
/** Unique, valid registration input; override any field. */
export function buildAccount(overrides: Partial<{ name: string; email: string; password: string }> = {}) {
  counter++;
  return {
    name: `Tester ${counter}`,
    email: `t${counter}.${Math.random().toString(36).slice(2, 8)}@example.com`,
    password: 'correct horse battery',
    ...overrides,
  };
}

/** Registers a user and logs in; answers the account input, access token and refresh cookie value. */
export async function registerAndLogin(stack: TestStack, kind: 'user' | 'admin' = 'user', headers: Record<string, string> = {}) {
  const { call, cookieValue } = await import('./http-client');
  const account = buildAccount();
  const registered = await call(stack.url, 'POST', `/api/auth/${kind}/register`, { body: account, headers });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}: ${registered.text}`);
  const login = await call(stack.url, 'POST', `/api/auth/${kind}/login`, { body: { email: account.email, password: account.password } });
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${login.text}`);
  const cookieName = kind === 'admin' ? 'adminRefreshToken' : 'userRefreshToken';
  return {
    account,
    id: login.body.data?.[kind]?.id as string,
    accessToken: login.body.data?.accessToken as string,
    refresh: cookieValue(login.setCookies, cookieName) as string,
    login,
  };
}
