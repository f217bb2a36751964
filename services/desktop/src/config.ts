// Desktop configuration: its own MongoDB database, token verification, the events exchange, sync limits.
import { z } from 'zod';
import { accessTokenVerifyEnv, env, loadConfig } from '@acct/shared';

export const desktopSchema = z.object({
  NODE_ENV: env.nodeEnv(),
  LOG_LEVEL: env.logLevel(),
  HOST: env.string('127.0.0.1'),
  PORT: env.port(3002),
  HEALTH_PORT: env.port(9082),
  MONGO_URL: env.string('mongodb://127.0.0.1:27017'),
  MONGO_DB: env.string('desktop'),
  AMQP_URL: env.string('amqp://guest:guest@127.0.0.1:5672'),
  EVENTS_EXCHANGE: env.string('auth.events'),
  OUTBOX_POLL_MS: env.int(1000, 10),
  SYNC_MAX_CHANGES: env.int(500, 1),
  SYNC_MAX_VALUE_BYTES: env.int(64 * 1024, 16),
  SYNC_PAGE_SIZE: env.int(500, 1),
  LATEST_VERSION_MAX_AGE_SECONDS: env.int(60, 0),
  /** How long a replica reuses the latest release it read (0 reads the database every time). */
  RELEASE_CACHE_MS: env.int(2000, 0),
  ...accessTokenVerifyEnv,
});

export type DesktopConfig = z.infer<typeof desktopSchema>;

export const loadDesktopConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(desktopSchema, source);
