// Desktop configuration: its own MongoDB database for releases and sync state.
import { z } from 'zod';
import { env, loadConfig } from '@acct/shared';

export const desktopSchema = z.object({
  NODE_ENV: env.nodeEnv(),
  LOG_LEVEL: env.logLevel(),
  HOST: env.string('127.0.0.1'),
  PORT: env.port(3002),
  HEALTH_PORT: env.port(9082),
  MONGO_URL: env.string('mongodb://127.0.0.1:27017'),
  MONGO_DB: env.string('desktop'),
});

export type DesktopConfig = z.infer<typeof desktopSchema>;

export const loadDesktopConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(desktopSchema, source);
