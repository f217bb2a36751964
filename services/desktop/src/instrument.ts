// Loaded first by start.ts: tracing, when configured, must patch the modules it instruments before
// anything loads them.
import { startTracing } from '@acct/shared/tracing';

// Its HTTP server traces its own requests (traceIncoming in create-app.ts).
startTracing('desktop', process.env, { serverByHand: true });
