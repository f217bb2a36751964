// Loaded first by start.ts: tracing, when configured, must patch the modules it instruments before
// anything loads them.
// Its HTTP server traces its own requests (traceIncoming in create-app.ts).
import { instrumentLibraries } from '@acct/shared/instrumentations';
import { startTracing } from '@acct/shared/tracing';

startTracing('desktop', process.env, { instrument: () => instrumentLibraries({ http: false }) });
