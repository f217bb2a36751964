// Auth configuration: stores, token keys and lifetimes, password cost, 2FA and rate-limit policy.
import { z } from 'zod';
import { env, loadConfig } from '@acct/shared';

export const authSchema = z.object({
  NODE_ENV: env.nodeEnv(),
  LOG_LEVEL: env.logLevel(),
  HOST: env.string('127.0.0.1'),
  PORT: env.port(3001),
  HEALTH_PORT: env.port(9081),
  MONGO_URL: env.string('mongodb://127.0.0.1:27017'),
  MONGO_DB: env.string('auth'),
  REDIS_URL: env.string('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z.string().default('auth:'),
  AMQP_URL: env.string('amqp://guest:guest@127.0.0.1:5672'),
  EVENTS_EXCHANGE: env.string('auth.events'),
});

export type AuthConfig = z.infer<typeof authSchema>;

export const loadAuthConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(authSchema, source);
