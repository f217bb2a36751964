// Typed configuration: one zod schema per service, parsed once at start. Every rule about a
// variable's shape lives here, once: an empty value is an unset one, lists, sizes, proxy trust and
// secrets given inline or as a file parse in the schema, and every refusal is one `configError` line.
import fs from 'node:fs';
import { z } from 'zod';
import { amqpNodeUrls } from './amqp/nodes';
import { parseRedisUrl } from './redis/url';
import { isSecretVariable } from './secrets';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * A rule across variables, over the values as given (strings, empty ones dropped) with every secret
 * given as a file (`NAME_FILE`) read into `NAME`: what production refuses, for instance, holds for
 * a mounted secret as for an inline one. Answers `[variable, reason]` for each refusal.
 */
export type ConfigRule = (given: Readonly<Record<string, string>>) => Array<[variable: string, reason: string]>;

/** Whether the values given are a production start. */
export const isProduction = (given: Readonly<Record<string, string>>) => given.NODE_ENV === 'production';

/**
 * Parses `env` against `schema`, then applies `rules`. An empty variable counts as unset (compose's
 * `${X:-}` when the shell has none), in every service alike. Each refused variable is one line
 * naming it and the value it refused; all of them, the schema's and the rules', are listed at once,
 * so one start names everything to fix.
 */
export function loadConfig<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv = process.env, rules: ConfigRule[] = []): z.infer<S> {
  const given = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
  const parsed = schema.safeParse(given);
  const lines = new Map<string, string>();
  const refuse = (variable: string, reason: string) => {
    if (!lines.has(variable)) lines.set(variable, configError(variable, reason, given[variable]).message);
  };
  if (!parsed.success) for (const issue of parsed.error.issues) refuse(issue.path.join('.') || '(environment)', issue.message);
  const { resolved, fromFile } = withSecretFiles(schema, given);
  for (const rule of rules) for (const [variable, reason] of rule(resolved)) refuse(fromFile.has(variable) ? `${variable}_FILE` : variable, reason);
  if (lines.size > 0) throw new ConfigError([...lines.values()].join('\n'));
  return parsed.data;
}

/**
 * The values as given, with each secret the schema takes as `NAME` or `NAME_FILE` and that was given
 * as a file read into `NAME` (an unreadable file is the schema's refusal, not the rules').
 */
function withSecretFiles(schema: z.ZodTypeAny, given: Readonly<Record<string, string>>) {
  const variables = new Set(variablesOf(schema));
  const resolved: Record<string, string> = { ...given };
  const fromFile = new Set<string>();
  for (const [variable, path] of Object.entries(given)) {
    const name = variable.replace(/_FILE$/, '');
    if (name === variable || !variables.has(name) || given[name] !== undefined) continue;
    try {
      resolved[name] = fs.readFileSync(path, 'utf8');
      fromFile.add(name);
    } catch {
      // readSecrets names the file it cannot read.
    }
  }
  return { resolved, fromFile };
}

/**
 * `Invalid configuration: NAME: reason (got "value")`: the value shown as refused, a URL without its
 * password, a secret's never.
 */
export function configError(variable: string, reason: string, value?: string): ConfigError {
  let shown = '';
  if (value !== undefined) {
    if (isSecretVariable(variable)) shown = ' (value not shown: a secret)';
    else shown = ` (got ${JSON.stringify(withoutPassword(value).slice(0, 200))})`;
  }
  return new ConfigError(`Invalid configuration: ${variable}: ${reason}${shown}`);
}

/**
 * The value with the password of any `scheme://user:password@` in it replaced, parseable or not:
 * the one rule for showing a URL in a log line or an error.
 */
export function withoutPassword(value: string): string {
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

const SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb)?$/i;

/** `100kb`, `1mb`, `512b` or a plain byte count, in bytes. */
export function parseBytes(value: string): number {
  const match = SIZE.exec(value.trim());
  if (!match) throw new ConfigError(`not a size: ${value}`);
  const unit = (match[2] ?? 'b').toLowerCase();
  return Math.floor(Number(match[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1));
}

/** A comma-separated value as a list: trimmed, empty entries dropped (the grammar of every list variable). */
export const splitList = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** What proxy-addr (and express's `trust proxy`) takes: none, all, a hop count, or addresses and subnets. */
export type TrustProxy = boolean | number | string[];

/** Whether a boolean variable's value is on, as `env.bool` reads it (a rule reading a raw value asks this too). */
export const isOn = (value: string | undefined): boolean => value === 'true' || value === '1' || value === 'yes';

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
      .transform(isOn),
  nodeEnv: () => z.enum(['development', 'test', 'production']).default('development'),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Comma-separated values, trimmed, empty ones dropped; each must pass `item` when given. */
  list: (fallback: string[] = [], item?: { test: (value: string) => boolean; expected: string }) =>
    z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined) return fallback;
        const values = splitList(v);
        if (item && !values.every(item.test)) ctx.addIssue({ code: 'custom', message: `expected ${item.expected}, comma-separated` });
        return values;
      }),
  /** A size (`100kb`, `1mb`, `512b` or bytes), in bytes. */
  bytes: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .refine((v) => SIZE.test(v.trim()), 'expected a size such as 100kb or 1mb')
      .transform(parseBytes),
  /** Which proxies' X-Forwarded-For to believe: `false` (none), `true` (all), a hop count, or addresses and subnets. */
  trustProxy: () =>
    z
      .string()
      .default('false')
      .transform((v): TrustProxy => {
        if (v === 'false') return false;
        if (v === 'true') return true;
        if (/^\d+$/.test(v)) return Number(v);
        return splitList(v);
      }),
  /**
   * A secret given inline (`NAME`) or as a file (`NAME_FILE`, a mounted secret). Spread it into a
   * schema and resolve it with `readSecrets`; setting both is an error.
   */
  secret: <N extends string>(name: N) =>
    ({ [name]: z.string().optional(), [`${name}_FILE`]: z.string().optional() }) as Record<N | `${N}_FILE`, z.ZodOptional<z.ZodString>>,
};

/**
 * The transform that resolves `env.secret` pairs: the config keeps `NAME` (inline or the file's
 * content, undefined when neither is set) and drops `NAME_FILE`. Use as `schema.transform(readSecrets(...))`.
 */
export function readSecrets<N extends string>(...names: N[]) {
  return <T extends Partial<Record<N | `${N}_FILE`, string>>>(config: T, ctx: z.RefinementCtx): Omit<T, `${N}_FILE`> & Partial<Record<N, string>> => {
    const out: Record<string, unknown> = { ...config };
    for (const name of names) {
      const inline = config[name];
      const file = config[`${name}_FILE`];
      delete out[`${name}_FILE`];
      if (inline !== undefined && file !== undefined) {
        ctx.addIssue({ code: 'custom', path: [name], message: `set it or ${name}_FILE, not both` });
        continue;
      }
      if (inline !== undefined) out[name] = inline;
      else if (file !== undefined) {
        try {
          out[name] = fs.readFileSync(file, 'utf8');
        } catch (err) {
          ctx.addIssue({ code: 'custom', path: [`${name}_FILE`], message: `cannot read ${file}: ${(err as Error).message}` });
        }
      }
    }
    return out as Omit<T, `${N}_FILE`> & Partial<Record<N, string>>;
  };
}

/** A resolved secret that the caller cannot do without. */
export function requireSecret(value: string | undefined, name: string): string {
  if (value === undefined) throw configError(name, `set ${name} or ${name}_FILE`);
  return value;
}

/** The zod object a service schema was built from, under any transforms: its keys are the variables it reads. */
export function variablesOf(schema: z.ZodTypeAny): string[] {
  let inner: z.ZodTypeAny = schema;
  while (inner instanceof z.ZodEffects) inner = inner.innerType();
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : [];
}

/** One server, a Redis Cluster or a Sentinel group: the grammar is `parseRedisUrl`'s. */
const redisUrl = () =>
  env.string('redis://127.0.0.1:6379').superRefine((value, ctx) => {
    try {
      parseRedisUrl(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
    }
  });

/** How far apart the clocks of two hosts may be: an ended session's entry outlives its last token's expiry by this much. */
export const REVOCATION_CLOCK_SKEW_MS = 60_000;

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
    REDIS_URL: redisUrl(),
    REDIS_PREFIX: z.string().default(keyPrefix),
  }),
  /** Every service that accepts access tokens: the revocation feed, a stream in REDIS_URL's Redis. */
  revocations: () => ({
    REDIS_URL: redisUrl(),
    REVOCATION_STREAM: env.string('auth:revocations'),
    /** Past this age without news from the feed, a replica reads the stream on the next check (and refuses while it cannot). */
    REVOCATION_MAX_STALENESS_MS: env.int(1000, 100),
  }),
  /** The event bus: where events are published (auth, desktop) and consumed (notifier). */
  events: () => ({
    /** One node, or a cluster's nodes comma-separated (a lost connection goes on to the next). */
    AMQP_URL: env.string('amqp://guest:guest@127.0.0.1:5672').superRefine((value, ctx) => {
      try {
        amqpNodeUrls(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
    EVENTS_EXCHANGE: env.string('auth.events'),
  }),
  outbox: () => ({ OUTBOX_POLL_MS: env.int(1000, 10) }),
  /** The largest JSON body, one value for the gateway (which answers 413 first) and the services behind it. */
  body: () => ({ BODY_LIMIT: env.bytes('100kb') }),
};
