// Auth configuration: stores, token keys and lifetimes, password cost, 2FA, reset links and rate limits.
import { z } from 'zod';
import { accessTokenVerifyEnv, configError, configFragments, env, isLocalUrl, loadConfig } from '@acct/shared';

const DAY = 86_400;

export const authSchema = z.object({
  ...configFragments.service({ host: '127.0.0.1', healthPort: 9081 }),
  PORT: env.port(3001),
  ...configFragments.mongo('auth'),
  ...configFragments.redis('auth:'),
  ...configFragments.events(),
  ...configFragments.outbox(),
  ...configFragments.body(),
  JWT_PRIVATE_KEY: z.string().optional(),
  JWT_PRIVATE_KEY_FILE: z.string().optional(),
  JWT_ISSUER: accessTokenVerifyEnv.JWT_ISSUER,
  JWT_AUDIENCE: accessTokenVerifyEnv.JWT_AUDIENCE,
  ACCESS_TOKEN_TTL_SECONDS: env.int(900, 30),
  REFRESH_IDLE_TTL_SECONDS: env.int(7 * DAY, 60),
  REFRESH_GRACE_SECONDS: env.int(10, 0),
  SESSION_MAX_AGE_USER_SECONDS: env.int(30 * DAY, 60),
  SESSION_MAX_AGE_ADMIN_SECONDS: env.int(12 * 3600, 60),
  /** At most 15: each step doubles a hash's time, and 16 takes seconds a login, on any CPU of today. */
  BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(12),
  /** bcrypt hashes at once per replica; 0 means one per core. */
  BCRYPT_CONCURRENCY: env.int(0, 0),
  /** Whether new admins get a second factor: `auto` means on in production, off elsewhere. */
  ADMIN_2FA_DEFAULT: z.enum(['auto', 'true', 'false']).default('auto'),
  ADMIN_REGISTRATION_OPEN: env.bool(false),
  OTP_SECRET: z.string().min(16).default('development-only-otp-secret'),
  OTP_TTL_SECONDS: env.int(300, 1),
  OTP_MAX_ATTEMPTS: env.int(5, 1),
  RESET_TOKEN_TTL_SECONDS: env.int(1800, 60),
  RESET_URL_BASE_ADMIN: env.url('http://localhost:3000/admin/reset-password'),
  RESET_URL_BASE_USER: env.url('http://localhost:3000/reset-password'),
  RATE_LOGIN_IP_PER_MINUTE: env.int(30, 1),
  /** Failed logins for one account from one address in the window, before that address backs off. */
  RATE_LOGIN_FAILURES_PER_ACCOUNT_IP: env.int(5, 1),
  /** Failed logins for one account from all addresses together in the window (NIST 800-63B: at most 100). */
  RATE_LOGIN_FAILURES_PER_ACCOUNT: env.int(100, 1),
  RATE_LOGIN_FAILURE_WINDOW_SECONDS: env.int(900, 1),
  RATE_REGISTER_IP_PER_HOUR: env.int(20, 1),
  RATE_FORGOT_IP_PER_HOUR: env.int(20, 1),
  /** forgot-password requests for one address from one client address. */
  RATE_FORGOT_EMAIL_IP_PER_HOUR: env.int(3, 1),
  /** Reset mails to one address, whoever asks; past it the answer is the same and no mail goes out. */
  RATE_FORGOT_EMAIL_PER_HOUR: env.int(10, 1),
  RATE_RESET_IP_PER_HOUR: env.int(20, 1),
  RATE_OTP_IP_PER_MINUTE: env.int(30, 1),
  /** How often queued forgot-password requests are looked up and answered by mail (with ±50% jitter). */
  RESET_REQUEST_POLL_MS: env.int(1000, 10),
});

export type AuthConfig = z.infer<typeof authSchema>;

/**
 * Parses auth's config. Production refuses what is only fit for a laptop: no OTP secret of its own
 * (an empty one counts as none), and reset links that point at localhost.
 */
export function loadAuthConfig(source: NodeJS.ProcessEnv = process.env): AuthConfig {
  // An empty variable is an unset one (compose's `${OTP_SECRET:-}` when the shell has none).
  const given = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ''));
  const config = loadConfig(authSchema, given);
  const production = config.NODE_ENV === 'production';
  if (production) {
    if (!given.OTP_SECRET) throw configError('OTP_SECRET', 'required in production (a random secret of 32 bytes or more, the same on every replica)');
    for (const name of ['RESET_URL_BASE_ADMIN', 'RESET_URL_BASE_USER'] as const) {
      if (!given[name]) throw configError(name, 'required in production: the public page that takes a reset link');
      if (isLocalUrl(config[name])) throw configError(name, 'points at this machine; in production it must be the public reset page', config[name]);
    }
  }
  return config;
}

export const twoFactorByDefault = (config: AuthConfig) =>
  config.ADMIN_2FA_DEFAULT === 'auto' ? config.NODE_ENV === 'production' : config.ADMIN_2FA_DEFAULT === 'true';
