// Auth's composition root: config becomes policy, connections become stores, stores become the
// ports the use cases need; then the outbox relay, the reset-mail worker, the internal HTTP port
// and the health port. The one place auth is wired.
import { createLogger, composeService, createRegistry, httpMetrics, outboxMetrics, type Logger, type RunningService } from '@acct/shared';
import { Outbox, connectMongo, isMongoReady } from '@acct/shared/mongo';
import { connectRedis, isRedisReady } from '@acct/shared/redis';
import { connectPublisher } from '@acct/shared/amqp';
import type { AuthConfig } from './config';
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
import type { AuthPorts } from './domain/ports';
import { ResetMailWorker } from './domain/reset-mail-worker';
import { authMetrics, bcryptMetrics } from './metrics';
import { loadTokenIssuer } from './security/access-token-issuer';

export interface AuthOverrides {
  /** Where the security records (failed logins, refresh reuse) go; stdout by default. */
  audit?: Logger;
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
    const hasher = new PasswordHasher(config.passwords.cost, config.passwords.concurrency);
    bcryptMetrics(registry, hasher);
    outboxMetrics(registry, () => outbox.pendingStats());

    const ports: AuthPorts = {
      policy: config.policy,
      logger,
      audit: overrides.audit ?? createLogger({ level: config.LOG_LEVEL }),
      accounts,
      resets,
      resetRequests,
      outbox,
      loginAttempts: new LoginAttemptStore(redis, config.loginAttempts),
      sessions: new RefreshSessionStore(redis, config.sessions),
      otp: new OtpChallengeStore(redis, config.otp),
      rateLimits: new RateLimits(redis, config.rateLimits),
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
