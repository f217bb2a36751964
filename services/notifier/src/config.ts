// Notifier configuration: the bus and its retry policy, idempotency, device tokens, mail and push.
import { z } from 'zod';
import { ConfigError, configError, configFragments, env, loadConfig } from '@acct/shared';

export const notifierSchema = z.object({
  ...configFragments.service({ host: '127.0.0.1', healthPort: 9083 }),
  ...configFragments.mongo('notifier'),
  ...configFragments.redis('notifier:'),
  ...configFragments.events(),
  /** Prefix of every queue the notifier declares (isolates test runs; empty in production). */
  QUEUE_PREFIX: z.string().default(''),
  PREFETCH: env.int(20, 1),
  /** Back-off before each retry, comma-separated; a message is dead-lettered after the last. */
  RETRY_DELAYS_MS: z
    .string()
    .default('1000,10000,60000')
    .transform((v, ctx) => {
      const delays = v.split(',').map((d) => Number(d.trim()));
      if (delays.some((d) => !Number.isInteger(d) || d < 1)) ctx.addIssue({ code: 'custom', message: 'expected positive whole milliseconds, comma-separated' });
      return delays;
    }),
  /** How long a replica's claim on an event lasts before another may take it over (a crash's cost). */
  CLAIM_TTL_MS: env.int(30_000, 100),
  /** How long a handled event id is remembered, so redeliveries and duplicates are dropped. */
  DONE_TTL_SECONDS: env.int(7 * 86_400, 1),
  /** SMTP server for outgoing mail; when empty, mail is written as .eml files into MAIL_DIR. */
  SMTP_URL: z.string().default(''),
  MAIL_DIR: env.string('.stack/mail'),
  MAIL_FROM: env.string('Account Service <no-reply@example.com>'),
  PRODUCT_NAME: env.string('Account Service'),
  /** Firebase service-account JSON (inline or a file); without it pushes are logged, not sent. */
  FIREBASE_CREDENTIALS: z.string().optional(),
  FIREBASE_CREDENTIALS_FILE: z.string().optional(),
});

export type NotifierConfig = z.infer<typeof notifierSchema>;

/** Parses the notifier's config. Production refuses to start without SMTP_URL: mail would go to files nobody reads. */
export const loadNotifierConfig = (source: NodeJS.ProcessEnv = process.env): NotifierConfig => {
  const config = loadConfig(notifierSchema, source);
  if (config.NODE_ENV === 'production' && !config.SMTP_URL) {
    throw configError('SMTP_URL', 'required in production (without it mail is written into MAIL_DIR files, and nobody gets it)');
  }
  if (config.FIREBASE_CREDENTIALS && config.FIREBASE_CREDENTIALS_FILE) {
    throw new ConfigError('Invalid configuration: FIREBASE_CREDENTIALS: set it or FIREBASE_CREDENTIALS_FILE, not both');
  }
  return config;
};
