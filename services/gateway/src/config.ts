// Gateway configuration: the public port, where the services are, and how much to trust proxies.
import { z } from 'zod';
import { accessTokenVerifyEnv, env, loadConfig } from '@acct/shared';

export const gatewaySchema = z.object({
  NODE_ENV: env.nodeEnv(),
  LOG_LEVEL: env.logLevel(),
  HOST: env.string('0.0.0.0'),
  PORT: env.port(8080),
  HEALTH_PORT: env.port(9080),
  /** express `trust proxy`: false (default: X-Forwarded-For ignored), a hop count, or a list of addresses. */
  TRUST_PROXY: z.string().default('false'),
  AUTH_URL: env.url('http://127.0.0.1:3001'),
  DESKTOP_URL: env.url('http://127.0.0.1:3002'),
  UPSTREAM_TIMEOUT_MS: env.int(10_000, 100),
  /** How long a client may take to send a request body (408 past it); node's own bound is 300 s. */
  BODY_TIMEOUT_MS: env.int(20_000, 100),
  BODY_LIMIT: z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb)?$/i, 'expected a size such as 100kb or 1mb').default('100kb'),
  /** Largest avatar upload body (the file itself is capped at 2 MiB by auth). */
  UPLOAD_LIMIT_BYTES: env.int(3 * 1024 * 1024, 1024),
  ...accessTokenVerifyEnv,
});

export type GatewayConfig = z.infer<typeof gatewaySchema>;

export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(gatewaySchema, source);

/** Turns TRUST_PROXY into the value express's `trust proxy` setting takes. */
export function trustProxySetting(value: string): boolean | number | string {
  if (value === 'false' || value === '') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
