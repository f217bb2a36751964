// Typed configuration: one zod schema per service, parsed once at start, failing with one line.
import { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses `env` against `schema`; a bad or missing variable throws one line naming it. */
export function loadConfig<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const variable = issue.path.join('.') || '(environment)';
  throw new ConfigError(`Invalid configuration: ${variable}: ${issue.message}`);
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
