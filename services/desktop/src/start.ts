// Desktop entry point: config first, then MongoDB, then listen; SIGTERM/SIGINT stop it cleanly.
import { createLogger, installShutdown, runMain } from '@acct/shared';
import { loadDesktopConfig } from './config';
import { startDesktop } from './server';

runMain(async () => {
  const config = loadDesktopConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, base: { service: 'desktop' } });
  const running = await startDesktop(config, logger);
  installShutdown([{ name: 'desktop', close: () => running.stop() }], logger);
});
