// The thread that sends a service's spans to the collector (started by ThreadExporter in
// tracing/index.ts). It is the OpenTelemetry OTLP/HTTP trace exporter as the SDK builds it, with the
// same environment (endpoint, headers, timeout, compression, certificates), retries and concurrency
// limit; only the batch arrives already serialised, as bytes moved from the service's thread.
// Why a thread of its own: the exporter's HTTP client shares node:http's and the streams' code with
// the service's responses, and every export deoptimised that code on the service's thread again
// (`_storeHeader` and `end` 33 times in one bench run), which cost refresh about 4 % of its throughput
// at a 5 % sampler whatever the transport (node:http or undici's fetch). This thread has its own.
import { parentPort } from 'node:worker_threads';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
// The package's `node-http` entry (its exports map, which this project's module resolution does not read for types).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { convertLegacyHttpOptions, createOtlpHttpExportDelegate } = require('@opentelemetry/otlp-exporter-base/node-http') as typeof import('@opentelemetry/otlp-exporter-base/build/src/index-node-http');

/** A batch, serialised on the service's thread (OTLP JSON, as @opentelemetry/exporter-trace-otlp-http sends). */
export interface SerializedBatch {
  body: Uint8Array;
  spans: number;
}

export type ExportThreadRequest = { id: number; type: 'export'; batch: SerializedBatch } | { id: number; type: 'flush' | 'shutdown' };

export interface ExportThreadAnswer {
  id: number;
  ok: boolean;
  /** Why the batch did not go out (the exporter's error message; no span data). */
  error?: string;
}

if (parentPort) {
  const port = parentPort;
  const exporter = new OTLPExporterBase<SerializedBatch>(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/json' }),
      { serializeRequest: (batch) => batch.body, deserializeResponse: (data) => JsonTraceSerializer.deserializeResponse(data) },
      'otlp_http_span_exporter',
      { name: 'span', countItems: (batch) => batch.spans },
      undefined,
    ),
  );
  const answer = (id: number, error?: unknown) => port.postMessage({ id, ok: error === undefined, ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }) } satisfies ExportThreadAnswer);
  port.on('message', (request: ExportThreadRequest) => {
    if (request.type === 'export') {
      exporter.export(request.batch, (result) => answer(request.id, result.code === 0 ? undefined : (result.error ?? 'export failed')));
      return;
    }
    (request.type === 'flush' ? exporter.forceFlush() : exporter.shutdown()).then(
      () => answer(request.id),
      (err: unknown) => answer(request.id, err ?? 'failed'),
    );
  });
}
