// Starts a notifier in-process on isolated queues, with a recording push sender, and publishes
// events through auth's own publisher (topic exchange, persistent, messageId = event id, type =
// routing key, the request id header).
import { randomUUID } from 'node:crypto';
import type amqp from 'amqplib';
import { createMemoryLogger, currentRequestId, isEventType, type RunningService } from '@acct/shared';
import { AmqpClient, EventPublisher, connectAnyNode } from '@acct/shared/amqp';
import { loadNotifierConfig, queueSpecs, startNotifier, type Mailer, type PushNotification, type PushResult, type PushSender } from '@acct/notifier';
import { removeIsolated, testUrls, type TestNames } from '@acct/test-harness/isolation';
import { scaled } from '@acct/test-harness/time-scale';

/** The delays the test notifier retries after (short, so retry tests are quick). */
export const TEST_RETRY_DELAYS_MS = [50, 100, 150];

export class RecordingPushSender implements PushSender {
  readonly name = 'recording';
  /** Every push, with the request id of the event behind it (the consumer runs each message in its request's context). */
  readonly sent: Array<{ tokens: string[]; notification: PushNotification; at: number; requestId?: string }> = [];
  /** Tokens to report as unregistered. */
  dead = new Set<string>();
  /** When set, every send waits for this promise first (to hold a message in flight). */
  gate?: Promise<void>;
  fail?: Error;

  async send(tokens: string[], notification: PushNotification): Promise<PushResult> {
    if (this.gate) await this.gate;
    if (this.fail) throw this.fail;
    this.sent.push({ tokens, notification, at: Date.now(), requestId: currentRequestId() });
    const deadTokens = tokens.filter((t) => this.dead.has(t));
    return { successCount: tokens.length - deadTokens.length, failureCount: deadTokens.length, deadTokens };
  }
}

export interface TestNotifier {
  running: RunningService;
  push: RecordingPushSender;
  logs: Record<string, any>[];
  /** Drops the broker connection without acking anything, as a killed process would. */
  crash(): Promise<void>;
  stop(): Promise<boolean>;
}

export async function startTestNotifier(
  names: TestNames,
  options: { smtpUrl?: string; mailDir?: string; mailer?: Mailer; env?: Record<string, string>; push?: RecordingPushSender } = {},
): Promise<TestNotifier> {
  const urls = testUrls();
  const { logger, records } = createMemoryLogger('info');
  const push = options.push ?? new RecordingPushSender();
  const config = loadNotifierConfig({
    HEALTH_PORT: '0',
    MONGO_URL: urls.mongo,
    MONGO_DB: `${names.mongoDb}_notifier`,
    REDIS_URL: urls.redis,
    REDIS_PREFIX: `${names.redisPrefix}notifier:`,
    AMQP_URL: urls.amqp,
    EVENTS_EXCHANGE: names.exchange,
    QUEUE_PREFIX: names.queuePrefix,
    RETRY_DELAYS_MS: TEST_RETRY_DELAYS_MS.join(','),
    // Short, for a crashed replica's events to be taken over within a test; on the run's time scale,
    // since a handler outlasting the lease lets another replica send its copy too (a CI run at scale
    // 4 sent 21 of 20 in scale.message-queue with a fixed 500 ms).
    CLAIM_TTL_MS: String(scaled(500)),
    SMTP_URL: options.smtpUrl ?? '',
    MAIL_DIR: options.mailDir ?? '/tmp/acct-test-mail',
    ...options.env,
  });
  const amqpClient = new AmqpClient(config.AMQP_URL, logger, { connectionName: 'notifier-test' });
  const running = await startNotifier(config, logger, { push, mailer: options.mailer, amqp: amqpClient });
  return { running, push, logs: records, crash: () => amqpClient.close(), stop: () => running.stop() };
}

/** Every queue a test notifier with `prefix` declares. */
export function notifierQueues(prefix: string, delaysMs: number[] = TEST_RETRY_DELAYS_MS): string[] {
  return queueSpecs(prefix, delaysMs).flatMap((spec) => [spec.name, spec.dead, ...spec.retries.map((r) => r.name)]);
}

/** Removes what a test's notifiers made: their queues, the exchange, the idempotency keys and the device database. */
export function removeNotifierNames(names: TestNames, delaysMs?: number[]): Promise<void> {
  return removeIsolated(names, { queues: notifierQueues(names.queuePrefix, delaysMs) });
}

/**
 * Publishes to the test exchange with auth's EventPublisher; a raw channel beside it sends what
 * auth never would (poison messages, unknown types) and reads dead-letter queues.
 */
export class TestPublisher {
  private constructor(
    private readonly client: AmqpClient,
    private readonly publisher: EventPublisher,
    private readonly connection: Awaited<ReturnType<typeof amqp.connect>>,
    private readonly channel: amqp.ConfirmChannel,
    private readonly exchange: string,
  ) {}

  static async open(exchange: string): Promise<TestPublisher> {
    const client = new AmqpClient(testUrls().amqp, createMemoryLogger().logger, { connectionName: 'test-publisher' });
    const publisher = new EventPublisher(exchange);
    await publisher.attach(client);
    await client.start();
    const connection = await connectAnyNode(testUrls().amqp);
    // A node killed under it (npm run test:ha) ends this raw connection: not the test process.
    connection.on('error', () => undefined);
    const channel = await connection.createConfirmChannel();
    return new TestPublisher(client, publisher, connection, channel, exchange);
  }

  /** Publishes an event; answers its id. `raw` sends the body as-is (for poison messages). */
  async publish(type: string, fields: Record<string, unknown>, raw?: string): Promise<string> {
    const eventId = (fields.eventId as string) ?? randomUUID();
    const payload = { eventId, occurredAt: new Date().toISOString(), ...fields };
    if (raw === undefined && isEventType(type)) {
      await this.publisher.publish(type, eventId, payload);
      return eventId;
    }
    this.channel.publish(this.exchange, type, Buffer.from(raw ?? JSON.stringify(payload)), { persistent: true, messageId: eventId, type, contentType: 'application/json' });
    await this.channel.waitForConfirms();
    return eventId;
  }

  /** Reads what sits in a queue without consuming it for good (gets and nacks back). */
  async drainDead(queue: string): Promise<Array<{ headers: Record<string, unknown>; body: string }>> {
    const out: Array<{ headers: Record<string, unknown>; body: string }> = [];
    for (;;) {
      const msg = await this.channel.get(queue, { noAck: true });
      if (!msg) return out;
      out.push({ headers: msg.properties.headers ?? {}, body: msg.content.toString() });
    }
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
    await this.connection.close().catch(() => undefined);
  }
}
