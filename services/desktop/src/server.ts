// Starts the desktop service: MongoDB first, then its internal HTTP port and health port.
import { connectMongo, isMongoReady, startService, type Logger, type RunningService } from '@acct/shared';
import type { DesktopConfig } from './config';
import { createApp } from './create-app';

export async function startDesktop(config: DesktopConfig, logger: Logger): Promise<RunningService> {
  const mongo = await connectMongo(config.MONGO_URL, logger, { dbName: config.MONGO_DB });
  const app = createApp({ config, logger });
  return startService({
    name: 'desktop',
    logger,
    host: config.HOST,
    port: config.PORT,
    healthPort: config.HEALTH_PORT,
    app,
    checks: { mongo: () => isMongoReady(mongo) },
    closers: [{ name: 'mongo', close: () => mongo.close() }],
  });
}
