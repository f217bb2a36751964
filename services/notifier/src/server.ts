// Starts the notifier: RabbitMQ, Redis and MongoDB; no public port, health only.
import {
  AmqpClient,
  connectMongo,
  connectRedis,
  isMongoReady,
  isRedisReady,
  startService,
  type Logger,
  type RunningService,
} from '@acct/shared';
import type { NotifierConfig } from './config';

export async function startNotifier(config: NotifierConfig, logger: Logger): Promise<RunningService> {
  const mongo = await connectMongo(config.MONGO_URL, logger, { dbName: config.MONGO_DB });
  const redis = await connectRedis(config.REDIS_URL, logger, { keyPrefix: config.REDIS_PREFIX });
  const amqp = new AmqpClient(config.AMQP_URL, logger, { connectionName: 'notifier' });
  await amqp.start();
  return startService({
    name: 'notifier',
    logger,
    host: config.HOST,
    healthPort: config.HEALTH_PORT,
    checks: { mongo: () => isMongoReady(mongo), redis: () => isRedisReady(redis), amqp: () => amqp.ready },
    closers: [
      { name: 'amqp', close: () => amqp.close() },
      { name: 'redis', close: () => redis.quit() },
      { name: 'mongo', close: () => mongo.close() },
    ],
  });
}
