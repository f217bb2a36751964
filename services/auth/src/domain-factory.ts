// The composition root of auth's domain: real stores over the given connections.
import type { Connection } from 'mongoose';
import type { Redis } from 'ioredis';
import { Outbox, createLogger, readPem, type Logger } from '@acct/shared';
import type { AuthConfig } from './config';
import { AccountRepository, isDuplicateKey } from './data-access/account-repository';
import { LoginAttemptStore } from './data-access/login-attempt-store';
import { ResetRequestQueue } from './data-access/reset-request-queue';
import { OtpChallengeStore } from './data-access/otp-challenge-store';
import { RateLimits } from './data-access/rate-limits';
import { RefreshSessionStore } from './data-access/refresh-session-store';
import { ResetTokenRepository } from './data-access/reset-token-repository';
import { AccessTokenIssuer } from './domain/access-token-issuer';
import type { AuthDomain } from './domain/deps';
import { PasswordHasher } from './domain/passwords';

export interface DomainOptions {
  audit?: Logger;
}

/** Reads and checks the signing key; done before any connection so a bad key fails fast. */
export function loadTokenIssuer(config: AuthConfig): AccessTokenIssuer {
  const privateKey = readPem(config.JWT_PRIVATE_KEY, config.JWT_PRIVATE_KEY_FILE, 'JWT_PRIVATE_KEY');
  return new AccessTokenIssuer(privateKey, { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, ttlSeconds: config.ACCESS_TOKEN_TTL_SECONDS });
}

export async function buildDomain(
  config: AuthConfig,
  logger: Logger,
  mongo: Connection,
  redis: Redis,
  tokens: AccessTokenIssuer,
  options: DomainOptions = {},
): Promise<AuthDomain> {
  const accounts = { admin: new AccountRepository(mongo, 'admin'), user: new AccountRepository(mongo, 'user') };
  const resets = new ResetTokenRepository(mongo);
  const resetRequests = new ResetRequestQueue(mongo);
  const outbox = new Outbox(mongo, logger, { pollMs: config.OUTBOX_POLL_MS });
  await Promise.all([accounts.admin.init(), accounts.user.init(), resets.init(), resetRequests.init(), outbox.init()]);
  const settings = mongo.collection<{ _id: string; at: Date }>('settings');

  return {
    config,
    logger,
    audit: options.audit ?? createLogger({ level: config.LOG_LEVEL }),
    accounts,
    resets,
    resetRequests,
    outbox,
    loginAttempts: new LoginAttemptStore(redis, {
      perAccountAndIp: config.RATE_LOGIN_FAILURES_PER_ACCOUNT_IP,
      perAccount: config.RATE_LOGIN_FAILURES_PER_ACCOUNT,
      windowMs: config.RATE_LOGIN_FAILURE_WINDOW_SECONDS * 1000,
    }),
    sessions: new RefreshSessionStore(redis, {
      idleTtlMs: config.REFRESH_IDLE_TTL_SECONDS * 1000,
      graceMs: config.REFRESH_GRACE_SECONDS * 1000,
      maxAgeMs: { user: config.SESSION_MAX_AGE_USER_SECONDS * 1000, admin: config.SESSION_MAX_AGE_ADMIN_SECONDS * 1000 },
    }),
    otp: new OtpChallengeStore(redis, { secret: config.OTP_SECRET, ttlMs: config.OTP_TTL_SECONDS * 1000, maxAttempts: config.OTP_MAX_ATTEMPTS }),
    rateLimits: new RateLimits(redis, {
      loginIpPerMinute: config.RATE_LOGIN_IP_PER_MINUTE,
      registerIpPerHour: config.RATE_REGISTER_IP_PER_HOUR,
      forgotIpPerHour: config.RATE_FORGOT_IP_PER_HOUR,
      forgotEmailIpPerHour: config.RATE_FORGOT_EMAIL_IP_PER_HOUR,
      forgotEmailPerHour: config.RATE_FORGOT_EMAIL_PER_HOUR,
      resetIpPerHour: config.RATE_RESET_IP_PER_HOUR,
      otpIpPerMinute: config.RATE_OTP_IP_PER_MINUTE,
    }),
    hasher: new PasswordHasher(config.BCRYPT_COST, config.BCRYPT_CONCURRENCY || undefined),
    tokens,
    claimFirstAdmin: async () => {
      if ((await mongo.collection('admins').estimatedDocumentCount()) > 0) return undefined;
      try {
        await settings.insertOne({ _id: 'first-admin', at: new Date() });
      } catch (err) {
        if (isDuplicateKey(err)) return undefined;
        throw err;
      }
      return async () => {
        await settings.deleteOne({ _id: 'first-admin' });
      };
    },
  };
}

