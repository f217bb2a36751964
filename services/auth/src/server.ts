// Starts the auth service: MongoDB, Redis and RabbitMQ first, then the outbox relay, the internal
// HTTP port and the health port.
import {
  connectPublisher,
  closeAll,
  type Closer,
  connectMongo,
  connectRedis,
  isMongoReady,
  isRedisReady,
  startService,
  type Logger,
  type RunningService,
} from '@acct/shared';
import type { AuthConfig } from './config';
import { createApp } from './create-app';
import { AvatarStore } from './data-access/avatar-store';
import { buildDomain, loadTokenIssuer, type DomainOptions } from './domain-factory';
import { answerResetRequest } from './domain/password-reset';
import { ResetMailWorker } from './domain/reset-mail-worker';

export async function startAuth(config: AuthConfig, logger: Logger, options: DomainOptions = {}): Promise<RunningService> {
  const tokens = loadTokenIssuer(config);
  const opened: Closer[] = [];
  try {
    const mongo = await connectMongo(config.MONGO_URL, logger, { dbName: config.MONGO_DB });
    opened.unshift({ name: 'mongo', close: () => mongo.close() });
    const redis = await connectRedis(config.REDIS_URL, logger, { keyPrefix: config.REDIS_PREFIX });
    opened.unshift({ name: 'redis', close: () => redis.quit() });
    const { amqp, publisher } = await connectPublisher({ url: config.AMQP_URL, exchange: config.EVENTS_EXCHANGE, connectionName: 'auth' }, logger, opened);
    const domain = await buildDomain(config, logger, mongo, redis, tokens, options);
    domain.outbox.start(publisher);
    opened.unshift({ name: 'outbox', close: () => domain.outbox.stop() });
    const resetMail = new ResetMailWorker(domain.resetRequests, (request) => answerResetRequest(domain, request), logger, { pollMs: config.RESET_REQUEST_POLL_MS });
    resetMail.start();
    opened.unshift({ name: 'reset-mail', close: () => resetMail.stop() });
    return await startService({
      name: 'auth',
      logger,
      host: config.HOST,
      port: config.PORT,
      healthPort: config.HEALTH_PORT,
      app: createApp(domain, new AvatarStore(mongo)),
      checks: { mongo: () => isMongoReady(mongo), redis: () => isRedisReady(redis), amqp: () => amqp.ready },
      closers: opened,
    });
  } catch (err) {
    // A failed start leaves nothing open behind it.
    await closeAll(opened, logger, 5_000);
    throw err;
  }
}
