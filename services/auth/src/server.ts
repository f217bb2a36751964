// Auth's composition root: config becomes policy, connections become stores, stores become the
// deps the use cases need; then the outbox relay, the reset-mail worker, the internal HTTP port
// and the health port. The one place auth is wired.
import { hkdfSync } from 'node:crypto';
import { createLogger, composeService, createRegistry, httpMetrics, outboxMetrics, type Logger, type RunningService } from '@acct/shared';
import { Outbox, connectMongo, isMongoReady } from '@acct/shared/mongo';
import { closeRedis, connectRedis, isRedisReady, openRevocationFeed } from '@acct/shared/redis';
import { loadLanguages } from '@acct/shared/languages';
import { connectPublisher } from '@acct/shared/amqp';
import { weakenedSettings, type AuthConfig } from './config';
import { createApp } from './create-app';
import { MongoAccounts } from './data-access/mongo-accounts';
import { GridFsAvatars } from './data-access/gridfs-avatars';
import { MongoFirstAdminClaim } from './data-access/mongo-first-admin-claim';
import { MongoFactors } from './data-access/mongo-factors';
import { MongoAccountLinks } from './data-access/mongo-account-links';
import { MongoActivityLog } from './data-access/mongo-activity';
import { RedisCeremonies } from './data-access/redis-ceremonies';
import { RedisLocks } from './data-access/redis-locks';
import { DesktopClient } from './data-access/desktop-client';
import { MongoIdentities } from './data-access/mongo-identities';
import { OidcIdentityProviders } from './security/identity-providers';
import { SecretBox } from './security/secret-box';
import { CommonPasswordList } from './security/common-passwords';
import { RedisLoginAttempts } from './data-access/redis-login-attempts';
import { RedisSignInFlows } from './data-access/redis-sign-in-flows';
import { RedisTrustedBrowsers } from './data-access/redis-trusted-browsers';
import { AccountCopies, AnnouncedAccounts } from './data-access/account-copies';
import { RedisCodeGuesses } from './data-access/redis-code-guesses';
import { RedisRateLimits } from './data-access/redis-rate-limits';
import { RedisSessions } from './data-access/redis-sessions';
import { MongoResetRequestQueue } from './data-access/mongo-reset-request-queue';
import { MongoResetTokens } from './data-access/mongo-reset-tokens';
import { MongoFactorRecoveries } from './data-access/mongo-factor-recoveries';
import { BcryptPasswordHasher } from './security/password-hasher';
import { answerResetRequest } from './domain/email/password-reset';
import { answerEmailSignInRequest } from './domain/sign-in/email-sign-in';
import { answerVerificationRequest } from './domain/email/ownership';
import type { AuthDeps } from './domain/ports';
import { ResetMailJob } from './entry-points/jobs/reset-mail';
import { FactorRecoveryJob } from './entry-points/jobs/factor-recovery';
import { runFactorRecoveries } from './domain/email/factor-recovery';
import { factorMethods } from './domain/factors';
import { authMetrics, bcryptMetrics } from './metrics';
import { loadTokenIssuer } from './security/access-token-issuer';
import { OtpauthTotp } from './security/otpauth-totp';
import { PngQrCodes } from './security/qr-codes';
import { SimpleWebAuthnCeremonies } from './security/webauthn-ceremonies';
import { RedisAppConsents, RedisAppGrants, RedisAppSessionWatch } from './data-access/redis-app-grants';
import { MongoManagedApps } from './data-access/mongo-managed-apps';
import { AltchaBotCheck, NO_BOT_CHECK, SiteverifyBotCheck } from './security/bot-checks';
import type { BotCheck } from './domain/shared/ports';
import { appForProtocol, appSecretMatches } from './domain/apps/managed-apps';
import { MongoAppLogoutQueue } from './data-access/mongo-app-logout-queue';
import { BackchannelLogouts, NO_APP_LOGOUTS } from './entry-points/jobs/app-logouts';
import { appTokenClaims, endAppGrant, liveAppGrant } from './domain/apps/app-sign-in';
import { createOpenIdProvider, tellApp, type Provider } from './security/openid-provider';

/** A copy lives 30 s (a change stays in the feed a minute); 10,000 of them are a few MB. */
const ACCOUNT_COPIES = { ttlMs: 30_000, max: 10_000 };

export interface AuthOverrides {
  /** Where the security records (failed logins, refresh reuse) go; stdout by default. */
  audit?: Logger;
}

/**
 * How long a grant, its record of the app's session and the watch for its end last: as long as a
 * session can. An app that keeps refreshing is signed out when its session's absolute lifetime ends,
 * not a week after its sign-in.
 */
const grantTtlSecondsOf = (config: AuthConfig) => Math.ceil(Math.max(config.sessions.maxAgeMs.user, config.sessions.maxAgeMs.admin) / 1000);

/** The bot check BOT_CHECK names; ALTCHA's key, unless given, derived from OTP_SECRET (which every replica has). */
function botCheckOf(config: AuthConfig, redis: Parameters<typeof createOpenIdProvider>[1]): BotCheck {
  const { kind, altcha, widget } = config.botCheck;
  if (kind === 'altcha') return new AltchaBotCheck(redis, { ...altcha, key: altcha.key ?? Buffer.from(hkdfSync('sha256', config.otp.secret, '', 'bot check', 32)).toString('base64url') });
  if ((kind === 'turnstile' || kind === 'hcaptcha') && widget) return new SiteverifyBotCheck({ kind, ...widget });
  return NO_BOT_CHECK;
}

/** This service as an OpenID provider (security/openid-provider.ts), its hooks the rules of domain/apps. */
function openIdProvider(
  config: AuthConfig,
  deps: AuthDeps,
  redis: Parameters<typeof createOpenIdProvider>[1],
  privateKeyPem: string,
): { provider: Provider; issuer: string; grantTtlMs: number; resources: AuthConfig['openid']['resources'] } {
  const refreshTtlSeconds = config.sessions.idleTtlSeconds;
  const grantTtlSeconds = grantTtlSecondsOf(config);
  const provider = createOpenIdProvider(
    {
      issuer: config.openid.issuer,
      clients: config.openid.clients,
      resources: config.openid.resources,
      // Every replica signs and reads the same cookies: without keys of its own, one derived from OTP_SECRET.
      cookieKeys: config.openid.cookieKeys.length ? config.openid.cookieKeys : [Buffer.from(hkdfSync('sha256', config.otp.secret, '', 'openid-provider cookies', 32)).toString('base64url')],
      productApi: { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, accessTokenTtlSeconds: config.sessions.accessTokenTtlSeconds },
      refreshTtlSeconds,
      grantTtlSeconds,
      privateKeyPem,
      languages: loadLanguages(config.openid.languagesDir),
    },
    redis,
    {
      account: async (kind, id) => {
        // A store that does not answer fails the request (the provider's server_error): never as an
        // account gone, which would tell the app to drop its refresh token.
        const account = await deps.accounts[kind].findById(id);
        if (!account || account.disabled) return undefined;
        return { name: account.name, email: account.email, emailVerified: account.emailVerified === true || account.addressProvenAt !== undefined, updatedAt: account.updatedAt };
      },
      grantLive: async (grantId) => (await liveAppGrant(deps, grantId)) !== undefined,
      tokenClaims: (grantId, logout) => appTokenClaims(deps, grantId, logout),
      grantEnded: (grantId) => endAppGrant(deps, grantId),
      managedApp: (id) => appForProtocol(deps, id),
      secretMatches: (secrets, presented) => appSecretMatches(secrets, presented),
    },
    deps.logger,
  );
  return { provider, issuer: config.openid.issuer, grantTtlMs: grantTtlSeconds * 1000, resources: config.openid.resources };
}

export async function startAuth(config: AuthConfig, logger: Logger, overrides: AuthOverrides = {}): Promise<RunningService> {
  const tokens = loadTokenIssuer(config);
  for (const warning of weakenedSettings(config)) logger.warn({ setting: warning.split('=')[0] }, `Weakened setting: ${warning}`);
  return composeService('auth', logger, async (open) => {
    const mongo = await open('mongo', connectMongo(config.MONGO_URL, logger, { dbName: config.MONGO_DB }), (c) => c.close());
    const redis = await open('redis', connectRedis(config.REDIS_URL, logger, { keyPrefix: config.REDIS_PREFIX }), closeRedis);
    // Sessions on a connection of their own when their writes wait for replicas: a WAIT holds its
    // connection, and must not hold every rate limit and challenge queued behind it.
    const sessionRedis =
      config.sessions.replicaAck.replicas > 0 ? await open('redis-sessions', connectRedis(config.REDIS_URL, logger, { keyPrefix: config.REDIS_PREFIX }), closeRedis) : redis;
    // Loaded before the service answers: no token of an ended session gets through a fresh replica.
    const revocations = await open('revocations', openRevocationFeed(config, logger), (feed) => feed.close());
    const { publisher } = await open('amqp', connectPublisher({ url: config.AMQP_URL, exchange: config.EVENTS_EXCHANGE, connectionName: 'auth' }, logger), (p) => p.amqp.close());

    // Every account write is announced on a feed of changes, under which the replicas' copies of what
    // an owner is shown (GET /me) stay exact (data-access/account-copies.ts).
    const accountChanges = await open(
      'account-changes',
      openRevocationFeed({ ...config, REVOCATION_STREAM: `${config.REVOCATION_STREAM}:accounts` }, logger.child({ feed: 'account changes' })),
      (feed) => feed.close(),
    );
    const stores = { admin: new MongoAccounts(mongo, 'admin'), user: new MongoAccounts(mongo, 'user') };
    const profiles = new AccountCopies(stores, accountChanges, ACCOUNT_COPIES);
    const accounts = { admin: new AnnouncedAccounts('admin', stores.admin, profiles), user: new AnnouncedAccounts('user', stores.user, profiles) };
    const factors = new MongoFactors(mongo, new SecretBox(config.mfa.key));
    const resets = new MongoResetTokens(mongo);
    const links = new MongoAccountLinks(mongo);
    const resetRequests = new MongoResetRequestQueue(mongo);
    const identities = new MongoIdentities(mongo);
    const recoveries = new MongoFactorRecoveries(mongo);
    const outbox = new Outbox(mongo, logger, { pollMs: config.OUTBOX_POLL_MS });
    const activity = new MongoActivityLog(mongo, { retentionDays: config.activity.retentionDays, maxPerAccount: config.activity.maxPerAccount });
    const appLogoutQueue = config.openid.enabled ? new MongoAppLogoutQueue(mongo) : undefined;
    const managedApps = new MongoManagedApps(mongo);
    await Promise.all([appLogoutQueue?.init(), config.openid.enabled ? managedApps.init() : undefined, stores.admin.init(), stores.user.init(), factors.init(), resets.init(), links.init(), resetRequests.init(), identities.init(), recoveries.init(), outbox.init(), activity.init()]);
    const registry = createRegistry('auth');
    const hasher = new BcryptPasswordHasher(config.passwords.cost, config.passwords.concurrency, config.passwords.queue);
    bcryptMetrics(registry, hasher);
    outboxMetrics(registry, () => outbox.pendingStats());
    revocations.registerMetrics(registry);

    // Discovered in the background: a provider that cannot be reached makes only its own routes answer 503.
    const identityProviders = await open('identity-providers', Promise.resolve(new OidcIdentityProviders(config.identity.providers, logger)), (p) => p.stop());
    identityProviders.start();

    const codeGuesses = new RedisCodeGuesses(redis, config.otp);
    // The apps told when their sessions end: through the provider, made below once deps are whole.
    const made: { provider?: Provider } = {};
    const appLogouts = appLogoutQueue
      ? new BackchannelLogouts(
          new RedisAppSessionWatch(redis, grantTtlSecondsOf(config) * 1000),
          appLogoutQueue,
          (logout) => (made.provider ? tellApp(made.provider)(logout) : Promise.reject(new Error('the OpenID provider is not started yet'))),
          logger,
          { pollMs: config.OUTBOX_POLL_MS },
        )
      : undefined;
    const deps: AuthDeps = {
      policy: config.policy,
      logger,
      audit: overrides.audit ?? createLogger({ level: config.LOG_LEVEL }),
      accounts,
      resets,
      links,
      resetRequests,
      recoveries,
      outbox,
      activity,
      loginAttempts: new RedisLoginAttempts(redis, config.rateLimits.loginFailures),
      profiles,
      sessions: new RedisSessions(sessionRedis, config.sessions, revocations),
      revocations,
      flows: new RedisSignInFlows(
        redis,
        { secret: config.otp.secret, maxAttempts: config.otp.maxAttempts, ttlMs: { second_step: config.otp.ttlMs, passkey: config.otp.ttlMs, provider: config.policy.identity.flowTtlMs, email: config.policy.emailSignIn.ttlSeconds * 1000 } },
        codeGuesses,
      ),
      codeGuesses,
      trustedBrowsers: new RedisTrustedBrowsers(redis, { ttlMs: Math.max(1, config.mfa.trustedBrowserDays) * 86_400_000 }),
      factors,
      factorMethods,
      totp: new OtpauthTotp(),
      qrCodes: new PngQrCodes(),
      passkeys: new SimpleWebAuthnCeremonies(),
      ceremonies: new RedisCeremonies(redis, { ttlMs: config.otp.ttlMs, stepUpMs: config.mfa.stepUpMs }),
      rateLimits: new RedisRateLimits(redis, config.rateLimits.requests),
      hasher,
      passwordScreen: new CommonPasswordList(config.passwords.breachedCheck),
      tokens,
      avatars: new GridFsAvatars(mongo),
      firstAdmin: new MongoFirstAdminClaim(mongo),
      locks: new RedisLocks(redis),
      desktop: new DesktopClient(config.DESKTOP_URL),
      identityProviders,
      identities,
      metrics: authMetrics(registry),
      appGrants: new RedisAppGrants(redis),
      managedApps,
      appConsents: new RedisAppConsents(redis),
      botCheck: botCheckOf(config, redis),
      appLogouts: appLogouts ?? NO_APP_LOGOUTS,
    };
    const openid = config.openid.enabled ? openIdProvider(config, deps, redis, tokens.privateKeyPem) : undefined;
    made.provider = openid?.provider;
    if (appLogouts) {
      appLogouts.start();
      await open('app-logouts', appLogouts, (job) => job.stop());
    }

    outbox.start(publisher);
    await open('outbox', outbox, (o) => o.stop());
    const resetMail = new ResetMailJob(
      resetRequests,
      (request) =>
        request.purpose === 'verify' ? answerVerificationRequest(deps, request) : request.purpose === 'sign_in' ? answerEmailSignInRequest(deps, request) : answerResetRequest(deps, request),
      logger,
      { pollMs: config.links.resetRequestPollMs },
    );
    resetMail.start();
    await open('reset-mail', resetMail, (w) => w.stop());
    const recoveryJob = new FactorRecoveryJob(() => runFactorRecoveries(deps), logger, { pollMs: config.links.recovery.pollMs });
    recoveryJob.start();
    await open('factor-recovery', recoveryJob, (j) => j.stop());

    return {
      host: config.HOST,
      port: config.PORT,
      healthPort: config.HEALTH_PORT,
      app: createApp(deps, {
        verifier: tokens.verifier,
        bodyLimit: config.BODY_LIMIT,
        refreshCookieMaxAgeSeconds: config.sessions.idleTtlSeconds,
        http: httpMetrics(registry),
        stepUpSeconds: config.mfa.stepUpSeconds,
        openid,
      }),
      metrics: registry,
      // Not the broker: while it is away the outbox keeps events, and logins go on.
      checks: { mongo: () => isMongoReady(mongo), redis: () => isRedisReady(redis) },
    };
  });
}
