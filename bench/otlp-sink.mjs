#!/usr/bin/env node
// An OTLP/HTTP receiver that accepts and counts spans, for measuring what tracing costs:
//   node bench/otlp-sink.mjs 4318 &
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 BENCH_ONLY=refresh,404 npm run bench
// Prints its port on stdout (port 0: any free one), and the spans received every 10 s on stderr.
import http from 'node:http';

const port = Number(process.argv[2] ?? 4318);
let spans = 0;
http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        for (const r of JSON.parse(body).resourceSpans ?? []) for (const s of r.scopeSpans ?? []) spans += (s.spans ?? []).length;
      } catch {
        // not JSON: counted as nothing
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  })
  .listen(port, '127.0.0.1', function () {
    const { port: bound } = this.address();
    process.stdout.write(`${bound}\n`);
    process.stderr.write(`[otlp-sink] listening on ${bound}\n`);
  });
setInterval(() => process.stderr.write(`[otlp-sink] ${spans} spans received\n`), 10_000).unref();
