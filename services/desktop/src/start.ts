// Desktop entry point: config first, then MongoDB, then listen; SIGTERM/SIGINT stop it cleanly.
import './instrument';
import { runService } from '@acct/shared';
import { loadDesktopConfig } from './config';
import { startDesktop } from './server';

runService('desktop', loadDesktopConfig, startDesktop);
