// Starts the notifier: RabbitMQ, Redis and MongoDB, the push and mail transports, the consumers.
// No public port: health only.
import fs from 'node:fs';
import {
  AmqpClient,
  ConfigError,
  closeAll,
  connectMongo,
  connectRedis,
  isMongoReady,
  isRedisReady,
  startService,
  type Closer,
  type Logger,
  type RunningService,
} from '@acct/shared';
import type { NotifierConfig } from './config';
import { DeviceTokenRepository } from './data-access/device-token-repository';
import { IdempotencyStore } from './data-access/idempotency-store';
import { FolderMailer, SmtpMailer, type Mailer } from './domain/mailer';
import { FcmPushSender, LoggingPushSender, type PushSender } from './domain/push-sender';
import { Templates } from './domain/templates';
import { EventConsumer } from './entry-points/amqp/event-consumer';
import { queueSpecs } from './entry-points/amqp/topology';

export interface NotifierOverrides {
  push?: PushSender;
  mailer?: Mailer;
  /** The broker client to use (tests drop its connection to play a crash). */
  amqp?: AmqpClient;
}

export async function startNotifier(config: NotifierConfig, logger: Logger, overrides: NotifierOverrides = {}): Promise<RunningService> {
  const push = overrides.push ?? (await choosePushSender(config, logger));
  const mailer = overrides.mailer ?? (config.SMTP_URL ? new SmtpMailer(config.SMTP_URL, config.MAIL_FROM) : new FolderMailer(config.MAIL_DIR, config.MAIL_FROM));
  if (!overrides.mailer) logger.info({ mailer: mailer.name }, config.SMTP_URL ? 'Mail goes out through SMTP' : `Mail is written as .eml files into ${config.MAIL_DIR}`);
  const opened: Closer[] = [{ name: 'mailer', close: () => mailer.close() }];
  try {
    const mongo = await connectMongo(config.MONGO_URL, logger, { dbName: config.MONGO_DB });
    opened.unshift({ name: 'mongo', close: () => mongo.close() });
    const redis = await connectRedis(config.REDIS_URL, logger, { keyPrefix: config.REDIS_PREFIX });
    opened.unshift({ name: 'redis', close: () => redis.quit() });
    const devices = new DeviceTokenRepository(mongo);
    await devices.init();
    const consumer = new EventConsumer(
      { devices, push, mailer, templates: new Templates(), productName: config.PRODUCT_NAME, logger },
      new IdempotencyStore(redis, { claimTtlMs: config.CLAIM_TTL_MS, doneTtlSeconds: config.DONE_TTL_SECONDS }),
      { exchange: config.EVENTS_EXCHANGE, prefetch: config.PREFETCH, queues: queueSpecs(config.QUEUE_PREFIX, config.RETRY_DELAYS_MS) },
      logger,
    );
    const amqp = overrides.amqp ?? new AmqpClient(config.AMQP_URL, logger, { connectionName: 'notifier' });
    opened.unshift({ name: 'amqp', close: () => amqp.close() });
    await consumer.attach(amqp);
    opened.unshift({ name: 'consumer', close: () => consumer.stop() });
    await amqp.start();
    return await startService({
      name: 'notifier',
      logger,
      host: config.HOST,
      healthPort: config.HEALTH_PORT,
      checks: { mongo: () => isMongoReady(mongo), redis: () => isRedisReady(redis), amqp: () => amqp.ready },
      closers: opened,
    });
  } catch (err) {
    await closeAll(opened, logger, 5_000);
    throw err;
  }
}

async function choosePushSender(config: NotifierConfig, logger: Logger): Promise<PushSender> {
  const raw = config.FIREBASE_CREDENTIALS ?? (config.FIREBASE_CREDENTIALS_FILE ? readCredentials(config.FIREBASE_CREDENTIALS_FILE) : undefined);
  if (!raw) {
    logger.warn('No Firebase credentials (FIREBASE_CREDENTIALS): push notifications are logged, not sent');
    return new LoggingPushSender(logger);
  }
  let credentials: Record<string, string>;
  try {
    credentials = JSON.parse(raw);
  } catch {
    throw new ConfigError('Invalid configuration: FIREBASE_CREDENTIALS: not a JSON service-account key');
  }
  const { initializeApp, cert } = await import('firebase-admin/app');
  const { getMessaging } = await import('firebase-admin/messaging');
  const app = initializeApp({ credential: cert(credentials) }, `notifier-${process.pid}-${Date.now()}`);
  logger.info({ project: credentials.project_id }, 'Push notifications go through Firebase Cloud Messaging');
  return new FcmPushSender(getMessaging(app));
}

function readCredentials(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`Invalid configuration: FIREBASE_CREDENTIALS_FILE: cannot read ${file}: ${(err as Error).message}`);
  }
}
