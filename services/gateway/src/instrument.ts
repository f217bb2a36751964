// Loaded first by start.ts: tracing, when configured, must patch the modules it instruments before
// anything loads them. The gateway is the public edge: a client's trace context is not taken in.
import { startTracing } from '@acct/shared/tracing';

startTracing('gateway', process.env, { publicEdge: true });
