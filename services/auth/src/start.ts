// Auth entry point: config first, then dependencies, then listen; SIGTERM/SIGINT stop it cleanly.
import './instrument';
import { runService } from '@acct/shared';
import { loadAuthConfig } from './config';
import { startAuth } from './server';

runService('auth', loadAuthConfig, (config, logger) => startAuth(config, logger));
