// Starts the gateway: its public HTTP port and its health port.
import { createLogger, startService, type Logger, type RunningService } from '@acct/shared';
import type { GatewayConfig } from './config';
import { createApp } from './create-app';

export async function startGateway(config: GatewayConfig, logger: Logger, requestLogger?: Logger): Promise<RunningService> {
  const app = createApp({ config, logger, requestLogger: requestLogger ?? createLogger({ level: config.LOG_LEVEL }) });
  return startService({
    name: 'gateway',
    logger,
    host: config.HOST,
    port: config.PORT,
    healthPort: config.HEALTH_PORT,
    app,
    checks: {},
    closers: [],
  });
}
