// Loaded first by start.ts: tracing, when configured, must patch the modules it instruments before
// anything loads them.
// Its calls out (FCM) are spans too.
import { instrumentLibraries } from '@acct/shared/instrumentations';
import { startTracing } from '@acct/shared/tracing';

startTracing('notifier', process.env, { instrument: () => instrumentLibraries({ http: true }) });
