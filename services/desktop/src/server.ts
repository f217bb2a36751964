// Starts the desktop service: MongoDB and RabbitMQ (for device.registered through its outbox),
// then its internal HTTP port and health port.
import {
  AccessTokenVerifier,
  connectPublisher,
  Outbox,
  closeAll,
  connectMongo,
  isMongoReady,
  startService,
  type Closer,
  type Logger,
  type RunningService,
} from '@acct/shared';
import type { DesktopConfig } from './config';
import { createApp } from './create-app';
import { ReleaseRepository } from './data-access/release-repository';
import { SyncRepository } from './data-access/sync-repository';

export async function startDesktop(config: DesktopConfig, logger: Logger): Promise<RunningService> {
  const verifier = AccessTokenVerifier.fromConfig(config);
  const opened: Closer[] = [];
  try {
    const mongo = await connectMongo(config.MONGO_URL, logger, { dbName: config.MONGO_DB });
    opened.unshift({ name: 'mongo', close: () => mongo.close() });
    const { amqp, publisher } = await connectPublisher({ url: config.AMQP_URL, exchange: config.EVENTS_EXCHANGE, connectionName: 'desktop' }, logger, opened);
    const releases = new ReleaseRepository(mongo);
    const syncs = new SyncRepository(mongo);
    const outbox = new Outbox(mongo, logger, { pollMs: config.OUTBOX_POLL_MS });
    await Promise.all([releases.init(), syncs.init(), outbox.init()]);
    outbox.start(publisher);
    opened.unshift({ name: 'outbox', close: () => outbox.stop() });
    return await startService({
      name: 'desktop',
      logger,
      host: config.HOST,
      port: config.PORT,
      healthPort: config.HEALTH_PORT,
      app: createApp({ config, logger, releases, syncs, outbox, verifier }),
      checks: { mongo: () => isMongoReady(mongo), amqp: () => amqp.ready },
      closers: opened,
    });
  } catch (err) {
    await closeAll(opened, logger, 5_000);
    throw err;
  }
}
