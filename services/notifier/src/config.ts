// Notifier configuration: the bus, idempotency store, device-token store, mail and push transports.
import { z } from 'zod';
import { env, loadConfig } from '@acct/shared';

export const notifierSchema = z.object({
  NODE_ENV: env.nodeEnv(),
  LOG_LEVEL: env.logLevel(),
  HOST: env.string('127.0.0.1'),
  HEALTH_PORT: env.port(9083),
  MONGO_URL: env.string('mongodb://127.0.0.1:27017'),
  MONGO_DB: env.string('notifier'),
  REDIS_URL: env.string('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z.string().default('notifier:'),
  AMQP_URL: env.string('amqp://guest:guest@127.0.0.1:5672'),
  EVENTS_EXCHANGE: env.string('auth.events'),
  PREFETCH: env.int(20, 1),
  /** SMTP server for outgoing mail; when empty, mail is written as .eml files into MAIL_DIR. */
  SMTP_URL: z.string().default(''),
  MAIL_DIR: env.string('.stack/mail'),
  MAIL_FROM: env.string('Account Service <no-reply@example.com>'),
});

export type NotifierConfig = z.infer<typeof notifierSchema>;

export const loadNotifierConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(notifierSchema, source);
