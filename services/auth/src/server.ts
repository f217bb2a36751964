// Auth's composition root: config becomes policy, connections become stores, stores become the
// ports the use cases need; then the outbox relay, the reset-mail worker, the internal HTTP port
// and the health port. The one place auth is wired.
import { createLogger, composeService, createRegistry, httpMetrics, outboxMetrics, type Logger, type RunningService } from '@acct/shared';
import { Outbox, connectMongo, isMongoReady } from '@acct/shared/mongo';
import { connectRedis, isRedisReady } from '@acct/shared/redis';
import { connectPublisher } from '@acct/shared/amqp';
import { twoFactorByDefault, type AuthConfig } from './config';
import { createApp } from './create-app';
import { AccountRepository } from './data-access/account-repository';
import { AvatarStore } from './data-access/avatar-store';
import { MongoFirstAdminClaim } from './data-access/first-admin-claim';
import { LoginAttemptStore } from './data-access/login-attempt-store';
import { OtpChallengeStore } from './data-access/otp-challenge-store';
import { RateLimits } from './data-access/rate-limits';
import { RefreshSessionStore } from './data-access/refresh-session-store';
import { MongoResetRequestQueue } from './data-access/reset-request-queue';
import { ResetTokenRepository } from './data-access/reset-token-repository';
import { PasswordHasher } from './domain/passwords';
import { answerResetRequest } from './domain/password-reset';
import type { AuthPolicy, AuthPorts } from './domain/ports';
import { ResetMailWorker } from './domain/reset-mail-worker';
import { authMetrics, bcryptMetrics } from './metrics';
import { loadTokenIssuer } from './security/access-token-issuer';

export interface AuthOverrides {
  /** Where the security records (failed logins, refresh reuse) go; stdout by default. */
  audit?: Logger;
}

function authPolicy(config: AuthConfig): AuthPolicy {
  return {
    accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
    otpTtlSeconds: config.OTP_TTL_SECONDS,
    resetTokenTtlSeconds: config.RESET_TOKEN_TTL_SECONDS,
    resetUrlBase: { admin: config.RESET_URL_BASE_ADMIN, user: config.RESET_URL_BASE_USER },
    adminRegistrationOpen: config.ADMIN_REGISTRATION_OPEN,
    adminTwoFactor: twoFactorByDefault(config),
  };
}

export async function startAuth(config: AuthConfig, logger: Logger, overrides: AuthOverrides = {}): Promise<RunningService> {
  const tokens = loadTokenIssuer(config);
  return composeService('auth', logger, async (open) => {
    const mongo = await open('mongo', connectMongo(config.MONGO_URL, logger, { dbName: config.MONGO_DB }), (c) => c.close());
    const redis = await open('redis', connectRedis(config.REDIS_URL, logger, { keyPrefix: config.REDIS_PREFIX }), (r) => r.quit());
    const { publisher } = await open('amqp', connectPublisher({ url: config.AMQP_URL, exchange: config.EVENTS_EXCHANGE, connectionName: 'auth' }, logger), (p) => p.amqp.close());

    const accounts = { admin: new AccountRepository(mongo, 'admin'), user: new AccountRepository(mongo, 'user') };
    const resets = new ResetTokenRepository(mongo);
    const resetRequests = new MongoResetRequestQueue(mongo);
    const outbox = new Outbox(mongo, logger, { pollMs: config.OUTBOX_POLL_MS });
    await Promise.all([accounts.admin.init(), accounts.user.init(), resets.init(), resetRequests.init(), outbox.init()]);
    const registry = createRegistry('auth');
    const hasher = new PasswordHasher(config.BCRYPT_COST, config.BCRYPT_CONCURRENCY || undefined);
    bcryptMetrics(registry, hasher);
    outboxMetrics(registry, () => outbox.pendingStats());

    const ports: AuthPorts = {
      policy: authPolicy(config),
      logger,
      audit: overrides.audit ?? createLogger({ level: config.LOG_LEVEL }),
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
      hasher,
      tokens,
      avatars: new AvatarStore(mongo),
      firstAdmin: new MongoFirstAdminClaim(mongo),
      metrics: authMetrics(registry),
    };

    outbox.start(publisher);
    await open('outbox', outbox, (o) => o.stop());
    const resetMail = new ResetMailWorker(resetRequests, (request) => answerResetRequest(ports, request), logger, { pollMs: config.RESET_REQUEST_POLL_MS });
    resetMail.start();
    await open('reset-mail', resetMail, (w) => w.stop());

    return {
      host: config.HOST,
      port: config.PORT,
      healthPort: config.HEALTH_PORT,
      app: createApp(ports, { verifier: tokens.verifier, bodyLimit: config.BODY_LIMIT, refreshCookieMaxAgeSeconds: config.REFRESH_IDLE_TTL_SECONDS, http: httpMetrics(registry) }),
      metrics: registry,
      // Not the broker: while it is away the outbox keeps events, and logins go on.
      checks: { mongo: () => isMongoReady(mongo), redis: () => isRedisReady(redis) },
    };
  });
}
