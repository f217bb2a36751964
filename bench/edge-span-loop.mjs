#!/usr/bin/env node
// The gateway's per-request tracing calls in a loop (edgeSpan, inject, end), as the gateway starts
// tracing (publicEdge), with the real batch processor and export thread: CPU per request of the whole
// process (both threads). Needs the build and a collector to send to, e.g. bench/otlp-sink.mjs:
//   node bench/otlp-sink.mjs 0   (prints its port)
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:<port> OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=0.05 node bench/edge-span-loop.mjs
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tracing = require('../libs/shared/dist/tracing/index.js');
if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT) throw new Error('set OTEL_EXPORTER_OTLP_ENDPOINT (bench/otlp-sink.mjs)');
tracing.startTracing('gateway', process.env, { publicEdge: true });

const PER_TURN = 2000;
const TURNS = 100;
// Two passes: the first warms up; each yields to the event loop between turns, so that the batch
// processor's timer and the export thread's answers run as they would in a server.
for (let pass = 1; pass <= 2; pass++) {
  const before = process.cpuUsage();
  for (let turn = 0; turn < TURNS; turn++) {
    for (let i = 0; i < PER_TURN; i++) {
      const span = tracing.edgeSpan('POST', '/api/auth/user/refresh', '/api/auth/user/refresh', undefined);
      span.inject({});
      span.end(200);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(before);
  console.log(`pass ${pass}: ${((used.user + used.system) / (PER_TURN * TURNS)).toFixed(2)} µs CPU per request (sampler ${process.env.OTEL_TRACES_SAMPLER ?? 'default'} ${process.env.OTEL_TRACES_SAMPLER_ARG ?? ''})`);
}
await tracing.stopTracing(5000);
process.exit(0);
