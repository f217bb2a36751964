// Loaded first by start.ts: tracing, when configured, must patch the modules it instruments before
// anything loads them.
import { startTracing } from '@acct/shared/tracing';

startTracing('desktop');
