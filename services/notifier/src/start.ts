// Notifier entry point: config first, then dependencies; SIGTERM/SIGINT stop consuming and close cleanly.
import { createLogger, installShutdown, runMain } from '@acct/shared';
import { loadNotifierConfig } from './config';
import { startNotifier } from './server';

runMain(async () => {
  const config = loadNotifierConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, base: { service: 'notifier' } });
  const running = await startNotifier(config, logger);
  installShutdown([{ name: 'notifier', close: () => running.stop() }], logger);
});
