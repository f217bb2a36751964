// Auth entry point: config first, then dependencies, then listen; SIGTERM/SIGINT stop it cleanly.
import { createLogger, installShutdown, runMain } from '@acct/shared';
import { loadAuthConfig } from './config';
import { startAuth } from './server';

runMain(async () => {
  const config = loadAuthConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, base: { service: 'auth' } });
  const running = await startAuth(config, logger);
  installShutdown([{ name: 'auth', close: () => running.stop() }], logger);
});
