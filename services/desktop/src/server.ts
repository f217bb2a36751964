// The desktop service's composition root: MongoDB, the revocation feed (Redis), RabbitMQ (for
// device.registered through its outbox), the stores, then its internal HTTP port and health port.
import { AccessTokenVerifier, composeService, httpMetrics, type Logger, type RunningService } from '@acct/shared';
import { Outbox, connectMongo, isMongoReady } from '@acct/shared/mongo';
import { connectPublisher } from '@acct/shared/amqp';
import { openRevocationFeed } from '@acct/shared/redis';
import type { DesktopConfig } from './config';
import { createApp } from './create-app';
import { desktopMetrics } from './metrics';
import { LatestReleaseCache, ReleaseRepository } from './data-access/release-repository';
import { SyncRepository } from './data-access/sync-repository';
import { consumeAccountEvents } from './entry-points/amqp/account-events';

export async function startDesktop(config: DesktopConfig, logger: Logger): Promise<RunningService> {
  const verifier = AccessTokenVerifier.fromConfig(config);
  return composeService('desktop', logger, async (open) => {
    const mongo = await open('mongo', connectMongo(config.MONGO_URL, logger, { dbName: config.MONGO_DB }), (c) => c.close());
    // Loaded before the service answers: no token of an ended session gets through a fresh replica.
    const revocations = await open('revocations', openRevocationFeed(config, logger), (feed) => feed.close());
    const { publisher, amqp } = await open('amqp', connectPublisher({ url: config.AMQP_URL, exchange: config.EVENTS_EXCHANGE, connectionName: 'desktop' }, logger), (p) => p.amqp.close());
    const releases = new ReleaseRepository(mongo);
    const syncs = new SyncRepository(mongo);
    const outbox = new Outbox(mongo, logger, { pollMs: config.OUTBOX_POLL_MS });
    await Promise.all([releases.init(), syncs.init(), outbox.init()]);
    const registry = desktopMetrics(outbox);
    revocations.registerMetrics(registry);
    outbox.start(publisher);
    await open('outbox', outbox, (o) => o.stop());
    // A deleted account's sync data and devices go with it (the account.deleted event, once per replica set).
    await consumeAccountEvents(amqp, { exchange: config.EVENTS_EXCHANGE, queuePrefix: config.QUEUE_PREFIX }, async (event) => {
      if (event.kind !== 'user') return;
      const removed = await syncs.removeUser(event.accountId);
      logger.info({ user_id: event.accountId, removed, request_id: event.requestId }, 'Removed the sync data of a deleted account');
    }, logger);
    return {
      host: config.HOST,
      port: config.PORT,
      healthPort: config.HEALTH_PORT,
      app: createApp({
        logger,
        bodyLimit: config.BODY_LIMIT,
        http: httpMetrics(registry),
        latestReleases: new LatestReleaseCache(releases, config.RELEASE_CACHE_MS),
        releases,
        syncs,
        outbox,
        verifier,
        revocations,
        limits: { maxChanges: config.SYNC_MAX_CHANGES, maxValueBytes: config.SYNC_MAX_VALUE_BYTES, pageSize: config.SYNC_PAGE_SIZE },
        latestVersionMaxAgeSeconds: config.LATEST_VERSION_MAX_AGE_SECONDS,
      }),
      // Not the broker: while it is away the outbox keeps device.registered events.
      checks: { mongo: () => isMongoReady(mongo) },
      metrics: registry,
    };
  });
}
