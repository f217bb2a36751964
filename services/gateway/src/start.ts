// Gateway entry point: config first, then listen; SIGTERM/SIGINT stop it cleanly.
import './instrument';
import { runService } from '@acct/shared';
import { loadGatewayConfig } from './config';
import { startGateway } from './server';

runService('gateway', loadGatewayConfig, (config, logger) => startGateway(config, logger));
