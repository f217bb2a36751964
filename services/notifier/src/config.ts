// Notifier configuration: the bus and its retry policy, idempotency, device tokens, mail and push.
import { z } from 'zod';
import { configFragments, env, isProduction, loadConfig, readSecrets, type ConfigRule } from '@acct/shared';

export const notifierSchema = z.object({
  ...configFragments.service({ host: '127.0.0.1', healthPort: 9083 }),
  ...configFragments.mongo('notifier'),
  ...configFragments.redis('notifier:'),
  ...configFragments.events(),
  /** Prefix of every queue the notifier declares (isolates test runs; empty in production). */
  QUEUE_PREFIX: z.string().default(''),
  PREFETCH: env.int(20, 1),
  /** Back-off before each retry, comma-separated; a message is dead-lettered after the last. */
  RETRY_DELAYS_MS: env
    .list(['1000', '10000', '60000'], { test: (d) => /^\d+$/.test(d) && Number(d) >= 1, expected: 'positive whole milliseconds' })
    .transform((delays) => delays.map(Number))
    .refine((delays) => delays.length > 0, 'expected at least one delay'),
  /** How long a replica's claim on an event lasts before another may take it over (a crash's cost). */
  CLAIM_TTL_MS: env.int(30_000, 100),
  /** How long a handled event id is remembered, so redeliveries and duplicates are dropped. */
  DONE_TTL_SECONDS: env.int(86_400, 1),
  /** SMTP server for outgoing mail; when empty, mail is written as .eml files into MAIL_DIR. */
  SMTP_URL: z.string().default(''),
  MAIL_DIR: env.string('.stack/mail'),
  MAIL_FROM: env.string('Account Service <no-reply@example.com>'),
  PRODUCT_NAME: env.string('Account Service'),
  /** Who a person turns to (an address or a URL), named at the end of every mail; the gateway's pages read the same variable. */
  SUPPORT_CONTACT: z.string().trim().max(200).optional(),
  /** A folder of the deployment's own mail templates (`<name>.txt`, `<name>.html`), each replacing the built-in one; checked at start. */
  MAIL_TEMPLATES_DIR: z.string().optional(),
  /** A folder of the deployment's language files (`<code>.json`, as libs/shared/locales/en.json): each adds a language to the pages and the mails, or rewords a shipped one; the gateway and auth read the same folder. */
  LANGUAGES_DIR: z.string().min(1).optional(),
  /** Firebase service-account JSON (inline or a file); without it pushes are logged, not sent. */
  ...env.secret('FIREBASE_CREDENTIALS'),
});

const notifierConfig = notifierSchema.transform(readSecrets('FIREBASE_CREDENTIALS'));

const productionRules: ConfigRule = (given) =>
  isProduction(given) && !given.SMTP_URL ? [['SMTP_URL', 'required in production (without it mail is written into MAIL_DIR files, and nobody gets it)']] : [];

export type NotifierConfig = z.infer<typeof notifierConfig>;

/** Parses the notifier's config. Production refuses to start without SMTP_URL: mail would go to files nobody reads. */
export const loadNotifierConfig = (source: NodeJS.ProcessEnv = process.env): NotifierConfig => loadConfig(notifierConfig, source, [productionRules]);
