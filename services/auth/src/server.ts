// Starts the auth service: MongoDB, Redis and RabbitMQ first, then its internal HTTP port and health port.
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
import type { AuthConfig } from './config';
import { createApp } from './create-app';

export async function startAuth(config: AuthConfig, logger: Logger): Promise<RunningService> {
  const mongo = await connectMongo(config.MONGO_URL, logger, { dbName: config.MONGO_DB });
  const redis = await connectRedis(config.REDIS_URL, logger, { keyPrefix: config.REDIS_PREFIX });
  const amqp = new AmqpClient(config.AMQP_URL, logger, { connectionName: 'auth' });
  await amqp.start();
  const app = createApp({ config, logger });
  return startService({
    name: 'auth',
    logger,
    host: config.HOST,
    port: config.PORT,
    healthPort: config.HEALTH_PORT,
    app,
    checks: { mongo: () => isMongoReady(mongo), redis: () => isRedisReady(redis), amqp: () => amqp.ready },
    closers: [
      { name: 'amqp', close: () => amqp.close() },
      { name: 'redis', close: () => redis.quit() },
      { name: 'mongo', close: () => mongo.close() },
    ],
  });
}
