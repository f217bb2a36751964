// Notifier entry point: config first, then dependencies; SIGTERM/SIGINT stop consuming and close cleanly.
import './instrument';
import { runService } from '@acct/shared';
import { loadNotifierConfig } from './config';
import { startNotifier } from './server';

runService('notifier', loadNotifierConfig, (config, logger) => startNotifier(config, logger));
