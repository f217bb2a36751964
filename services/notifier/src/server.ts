// The notifier's composition root: the push and mail transports, MongoDB and Redis, then the
// consumers on RabbitMQ. No public port: health only.
import { configError, composeService, createRegistry, type Logger, type RunningService } from '@acct/shared';
import { connectMongo, isMongoReady } from '@acct/shared/mongo';
import { closeRedis, connectRedis, isRedisReady } from '@acct/shared/redis';
import { AmqpClient } from '@acct/shared/amqp';
import type { NotifierConfig } from './config';
import { eventMetrics } from './metrics';
import { DeviceTokenRepository } from './data-access/device-token-repository';
import { IdempotencyStore } from './data-access/idempotency-store';
import type { Mailer, PushSender } from './domain/ports';
import { mailTemplates } from './mail-templates';
import { EventConsumer } from './entry-points/amqp/event-consumer';
import { queueSpecs } from './entry-points/amqp/topology';
import { FolderMailer, SmtpMailer } from './transports/mailer';
import { FcmPushSender, LoggingPushSender } from './transports/push-sender';

export interface NotifierOverrides {
  push?: PushSender;
  mailer?: Mailer;
  /** The broker client to use (tests drop its connection to play a crash). */
  amqp?: AmqpClient;
}

export async function startNotifier(config: NotifierConfig, logger: Logger, overrides: NotifierOverrides = {}): Promise<RunningService> {
  const templates = mailTemplates(config);
  const push = overrides.push ?? (await choosePushSender(config, logger));
  return composeService('notifier', logger, async (open) => {
    const mailer = await open('mailer', overrides.mailer ?? chooseMailer(config, logger), (m) => m.close());
    const mongo = await open('mongo', connectMongo(config.MONGO_URL, logger, { dbName: config.MONGO_DB }), (c) => c.close());
    const redis = await open('redis', connectRedis(config.REDIS_URL, logger, { keyPrefix: config.REDIS_PREFIX }), closeRedis);
    const registry = createRegistry('notifier');
    const devices = new DeviceTokenRepository(mongo);
    await devices.init();
    const consumer = new EventConsumer(
      { devices, push, mailer, templates, productName: config.PRODUCT_NAME, supportContact: config.SUPPORT_CONTACT, logger },
      new IdempotencyStore(redis, { claimTtlMs: config.CLAIM_TTL_MS, doneTtlSeconds: config.DONE_TTL_SECONDS }),
      { exchange: config.EVENTS_EXCHANGE, prefetch: config.PREFETCH, queues: queueSpecs(config.QUEUE_PREFIX, config.RETRY_DELAYS_MS), observe: eventMetrics(registry) },
      logger,
    );
    const amqp = await open('amqp', overrides.amqp ?? new AmqpClient(config.AMQP_URL, logger, { connectionName: 'notifier' }), (a) => a.close());
    await consumer.attach(amqp);
    await open('consumer', consumer, (c) => c.stop());
    await amqp.start();
    return {
      host: config.HOST,
      healthPort: config.HEALTH_PORT,
      checks: { mongo: () => isMongoReady(mongo), redis: () => isRedisReady(redis), amqp: () => amqp.ready },
      metrics: registry,
    };
  });
}

export function chooseMailer(config: NotifierConfig, logger: Logger): Mailer {
  if (config.SMTP_URL) {
    logger.info({ mailer: 'smtp' }, 'Mail goes out through SMTP');
    return new SmtpMailer(config.SMTP_URL, config.MAIL_FROM);
  }
  logger.info({ mailer: 'folder' }, `Mail is written as .eml files into ${config.MAIL_DIR}`);
  // In development each mail's file and link are logged, so a developer can follow a reset link.
  return new FolderMailer(config.MAIL_DIR, config.MAIL_FROM, config.NODE_ENV === 'development' ? logger : undefined);
}

async function choosePushSender(config: NotifierConfig, logger: Logger): Promise<PushSender> {
  const raw = config.FIREBASE_CREDENTIALS;
  if (!raw) {
    logger.warn('No Firebase credentials (FIREBASE_CREDENTIALS): push notifications are logged, not sent');
    return new LoggingPushSender(logger);
  }
  let credentials: Record<string, string>;
  try {
    credentials = JSON.parse(raw);
  } catch {
    throw configError('FIREBASE_CREDENTIALS', 'not a JSON service-account key');
  }
  const { initializeApp, cert } = await import('firebase-admin/app');
  const { getMessaging } = await import('firebase-admin/messaging');
  const app = initializeApp({ credential: cert(credentials) }, `notifier-${process.pid}-${Date.now()}`);
  logger.info({ project: credentials.project_id }, 'Push notifications go through Firebase Cloud Messaging');
  return new FcmPushSender(getMessaging(app));
}
