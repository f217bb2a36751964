// Typed configuration: one zod schema per service, parsed once at start, failing with one line.
import { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses `env` against `schema`; a bad or missing variable throws one line naming it and the value it refused. */
export function loadConfig<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const variable = issue.path.join('.') || '(environment)';
  throw configError(variable, issue.message, env[variable]);
}

/** Names of variables whose values are secrets: an error names them but never shows their value. */
const SECRET_VARIABLE = /SECRET|PASSWORD|PRIVATE|CREDENTIALS|TOKEN|_KEY$/;

/**
 * `Invalid configuration: NAME: reason (got "value")`: the value shown as refused, a URL without its
 * password, a secret's never.
 */
export function configError(variable: string, reason: string, value?: string): ConfigError {
  let shown = '';
  if (value !== undefined) {
    if (SECRET_VARIABLE.test(variable)) shown = ' (value not shown: a secret)';
    else shown = ` (got ${JSON.stringify(withoutPassword(value).slice(0, 200))})`;
  }
  return new ConfigError(`Invalid configuration: ${variable}: ${reason}${shown}`);
}

/** The value with the password of any `scheme://user:password@` in it replaced, parseable or not. */
function withoutPassword(value: string): string {
  return value.replace(/(\/\/[^:/@\s]*:)[^@\s]*@/g, '$1***@');
}

/** Whether a URL points at this machine, which in production is never what a user's link should. */
export function isLocalUrl(value: string): boolean {
  try {
    const host = new URL(value).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host.endsWith('.localhost') || host === '0.0.0.0' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

/** Helpers for the variable shapes every service repeats. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  int: (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback),
  string: (fallback: string) => z.string().min(1).default(fallback),
  url: (fallback: string) => z.string().url().default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  nodeEnv: () => z.enum(['development', 'test', 'production']).default('development'),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

/** `100kb`, `1mb`, `512b` or a plain byte count, in bytes. */
export function parseBytes(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb)?$/i.exec(value.trim());
  if (!match) throw new ConfigError(`not a size: ${value}`);
  const unit = (match[2] ?? 'b').toLowerCase();
  return Math.floor(Number(match[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1));
}

/**
 * The variables several services read, declared once. Each service's schema spreads the fragments
 * it uses and keeps its own defaults (ports, database, key prefix) as arguments.
 */
export const configFragments = {
  /** Every service: environment, log level, the address it binds and its health port. */
  service: (defaults: { host: string; healthPort: number }) => ({
    NODE_ENV: env.nodeEnv(),
    LOG_LEVEL: env.logLevel(),
    HOST: env.string(defaults.host),
    HEALTH_PORT: env.port(defaults.healthPort),
    /** After SIGTERM, how long readiness answers 503 while the service still serves (endpoints update meanwhile). */
    SHUTDOWN_DELAY_MS: env.int(5_000, 0),
    /** Then, how long in-flight requests and messages get before the rest is cut (exit 1). */
    SHUTDOWN_TIMEOUT_MS: env.int(15_000, 100),
  }),
  mongo: (database: string) => ({
    MONGO_URL: env.string('mongodb://127.0.0.1:27017'),
    MONGO_DB: env.string(database),
  }),
  redis: (keyPrefix: string) => ({
    REDIS_URL: env.string('redis://127.0.0.1:6379'),
    REDIS_PREFIX: z.string().default(keyPrefix),
  }),
  /** The event bus: where events are published (auth, desktop) and consumed (notifier). */
  events: () => ({
    AMQP_URL: env.string('amqp://guest:guest@127.0.0.1:5672'),
    EVENTS_EXCHANGE: env.string('auth.events'),
  }),
  outbox: () => ({ OUTBOX_POLL_MS: env.int(1000, 10) }),
  /** The largest JSON body, one value for the gateway (which answers 413 first) and the services behind it. */
  body: () => ({
    BODY_LIMIT: z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb)?$/i, 'expected a size such as 100kb or 1mb').default('100kb'),
  }),
};
