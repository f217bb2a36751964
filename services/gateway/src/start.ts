// Gateway entry point: config first, then listen; SIGTERM/SIGINT stop it cleanly.
import { createLogger, installShutdown, runMain } from '@acct/shared';
import { loadGatewayConfig } from './config';
import { startGateway } from './server';

runMain(async () => {
  const config = loadGatewayConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, base: { service: 'gateway' } });
  const running = await startGateway(config, logger);
  installShutdown([{ name: 'gateway', close: () => running.stop() }], logger);
});
