// Tracing's defaults: sending the last spans at exit is bounded (a collector that accepts connections and never answers
// costs the process at most the bound, never the exporter's own 10 s timeout), and 1 % of traces are sampled unless told;
// at the public edge that share is drawn before any span is made.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { buildWorkspaces, repositoryRoot } from '@acct/test-harness/build';
import { DEFAULT_SAMPLE_RATIO, edgeSampleRatio } from '@acct/shared/tracing';
import { scaled } from '@acct/test-harness/time-scale';

describe('tracing defaults', () => {
  it('when the collector never answers, then it gives up after its bound and says the spans did not go out', async () => {
    buildWorkspaces();
    const held = new Set<net.Socket>();
    const silent = net.createServer((socket) => void held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const script = `
      const tracing = require(${JSON.stringify(path.join(repositoryRoot, 'libs/shared/dist/tracing/index.js'))});
      tracing.startTracing('probe');
      const { trace } = require('@opentelemetry/api');
      trace.getTracer('probe').startSpan('one').end();
      const started = Date.now();
      tracing.stopTracing(500).then((sent) => { process.stdout.write(JSON.stringify({ sent, ms: Date.now() - started })); process.exit(0); });
    `;
    try {
      // The exporter reads its endpoint from the process environment, as in production.
      const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_TRACES_SAMPLER: 'always_on' };
      const child = spawn(process.execPath, ['-e', script], { cwd: path.join(repositoryRoot, 'libs/shared'), env, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      await new Promise((resolve) => child.once('exit', resolve));
      const result = JSON.parse(out) as { sent: boolean; ms: number };
      expect(result.sent).toBe(false);
      expect(result.ms).toBeGreaterThanOrEqual(450);
      expect(result.ms).toBeLessThan(scaled(5_000));
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 30_000);

  it('when spans are exported, then they reach the collector scrubbed, and the service\'s thread makes no HTTP request for them', async () => {
    buildWorkspaces();
    // A collector that keeps what it is sent.
    const received: { headers: http.IncomingHttpHeaders; body: { resourceSpans: { scopeSpans: { spans: { name: string; attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[] } }[] = [];
    const collector = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(body) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const port = (collector.address() as net.AddressInfo).port;
    // The service's thread counts the HTTP client requests it makes (the export thread has modules of its own).
    const script = `
      const http = require('node:http');
      let requests = 0;
      const request = http.request;
      http.request = (...args) => { requests++; return request(...args); };
      const addRequest = http.Agent.prototype.addRequest;
      http.Agent.prototype.addRequest = function (...args) { requests++; return addRequest.apply(this, args); };
      const tracing = require(${JSON.stringify(path.join(repositoryRoot, 'libs/shared/dist/tracing/index.js'))});
      tracing.startTracing('probe');
      const { trace } = require('@opentelemetry/api');
      for (let i = 0; i < 600; i++) trace.getTracer('probe').startSpan('span-' + i, { attributes: { 'url.query': 'token=s3cret&page=2' } }).end();
      tracing.stopTracing(10000).then((sent) => { process.stdout.write(JSON.stringify({ sent, requests })); process.exit(0); });
    `;
    try {
      const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k1', OTEL_TRACES_SAMPLER: 'always_on' };
      const child = spawn(process.execPath, ['-e', script], { cwd: path.join(repositoryRoot, 'libs/shared'), env, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      await new Promise((resolve) => child.once('exit', resolve));
      expect(JSON.parse(out)).toEqual({ sent: true, requests: 0 });
      const spans = received.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
      expect(spans.map((span) => span.name).sort()).toEqual(Array.from({ length: 600 }, (_, i) => `span-${i}`).sort());
      // In batches (512 at most), with the environment's headers, and no secret query value.
      expect(received.length).toBeGreaterThanOrEqual(2);
      expect(received.every((r) => r.headers['x-collector-key'] === 'k1' && r.headers['content-type'] === 'application/json')).toBe(true);
      const queries = spans.map((span) => span.attributes.find((a) => a.key === 'url.query')?.value.stringValue);
      expect(new Set(queries)).toEqual(new Set(['token=[redacted]&page=2']));
    } finally {
      collector.close();
    }
  }, 30_000);

  it('when only the endpoint is set, then about 1 % of new traces are sampled, and OTEL_TRACES_SAMPLER overrides it', async () => {
    buildWorkspaces();
    const sampledOf10000 = async (extra: Record<string, string>) => {
      const script = `
        const tracing = require(${JSON.stringify(path.join(repositoryRoot, 'libs/shared/dist/tracing/index.js'))});
        tracing.startTracing('probe');
        const { trace } = require('@opentelemetry/api');
        let sampled = 0;
        for (let i = 0; i < 10000; i++) { const span = trace.getTracer('probe').startSpan('root'); if (span.isRecording()) sampled++; span.end(); }
        process.stdout.write(String(sampled));
        process.exit(0);
      `;
      const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_SAMPLER: undefined, ...extra };
      const child = spawn(process.execPath, ['-e', script], { cwd: path.join(repositoryRoot, 'libs/shared'), env, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      await new Promise((resolve) => child.once('exit', resolve));
      return Number(out);
    };
    const byDefault = await sampledOf10000({});
    // 1 % of 10,000 is 100 (standard deviation 10); 40 to 160 is six of them either way, and 5 % (500) far outside.
    expect(byDefault).toBeGreaterThan(40);
    expect(byDefault).toBeLessThan(160);
    expect(await sampledOf10000({ OTEL_TRACES_SAMPLER: 'always_off' })).toBe(0);
    expect(await sampledOf10000({ OTEL_TRACES_SAMPLER: 'always_on' })).toBe(10000);
  }, 30_000);

  it('when the edge samples a request, then the service behind it traces it in the same trace; when not, then nothing there does', async () => {
    buildWorkspaces();
    // The gateway's edgeSpan and a service's traceIncoming in one process, 10,000 requests at the
    // default ratio: the traceparent the edge writes by hand, and the service's shortcut for a
    // caller that did not sample, must agree with the SDK's own decision every time.
    const script = `
      const tracing = require(${JSON.stringify(path.join(repositoryRoot, 'libs/shared/dist/tracing/index.js'))});
      tracing.startTracing('probe');
      const { trace } = require('@opentelemetry/api');
      const incoming = tracing.traceIncoming('probe');
      let agree = 0, sampled = 0, wellFormed = 0;
      for (let i = 0; i < 10000; i++) {
        const edge = tracing.edgeSpan('POST', '/api/x', '/api/x?token=secret', undefined);
        const headers = {};
        edge.inject(headers);
        if (/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/.test(headers.traceparent)) wellFormed++;
        const edgeSampled = headers.traceparent.endsWith('-01');
        if (edgeSampled) sampled++;
        incoming({ method: 'POST', url: '/api/x', headers }, { statusCode: 200, once() {} }, () => {
          const active = trace.getActiveSpan();
          const inTrace = active !== undefined && active.isRecording() && active.spanContext().traceId === headers.traceparent.slice(3, 35);
          if (inTrace === edgeSampled) agree++;
        });
        edge.end(200);
      }
      process.stdout.write(JSON.stringify({ agree, sampled, wellFormed }));
      process.exit(0);
    `;
    const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_SAMPLER: undefined };
    const child = spawn(process.execPath, ['-e', script], { cwd: path.join(repositoryRoot, 'libs/shared'), env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise((resolve) => child.once('exit', resolve));
    const result = JSON.parse(out) as { agree: number; sampled: number; wellFormed: number };
    expect(result.wellFormed).toBe(10000);
    expect(result.agree).toBe(10000);
    expect(result.sampled).toBeGreaterThan(40);
    expect(result.sampled).toBeLessThan(160);
  }, 30_000);

  it('when a path answers before the middlewares, then it asks whether a span may be made: never with tracing off, not for a caller\'s unsampled request under the default sampler', async () => {
    buildWorkspaces();
    const sampled = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const unsampled = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';
    const asked = async (env: Record<string, string | undefined>) => {
      const script = `
        const tracing = require(${JSON.stringify(path.join(repositoryRoot, 'libs/shared/dist/tracing/index.js'))});
        const ask = () => [undefined, ${JSON.stringify(sampled)}, ${JSON.stringify(unsampled)}].map((header) => tracing.mayTraceIncoming(header));
        const before = ask();
        tracing.startTracing('probe');
        process.stdout.write(JSON.stringify({ before, after: ask() }));
        process.exit(0);
      `;
      const child = spawn(process.execPath, ['-e', script], { cwd: path.join(repositoryRoot, 'libs/shared'), env: { ...process.env, OTEL_TRACES_SAMPLER: undefined, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      await new Promise((resolve) => child.once('exit', resolve));
      return JSON.parse(out) as { before: boolean[]; after: boolean[] };
    };
    // Tracing off: no span is ever made, whatever the caller sent.
    expect(await asked({ OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined })).toEqual({ before: [false, false, false], after: [false, false, false] });
    // On, default sampler (follows the caller): no traceparent may start a trace, a sampled caller's is followed, an unsampled one's is not.
    expect(await asked({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toEqual({ before: [false, false, false], after: [true, true, false] });
    // A sampler that does not follow the caller may trace any of them.
    expect((await asked({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_SAMPLER: 'always_on' })).after).toEqual([true, true, true]);
  }, 30_000);

  it('when the public edge does not draw a request for tracing, then it makes no span for it, only a fresh unsampled traceparent; the share drawn follows OTEL_TRACES_SAMPLER', async () => {
    buildWorkspaces();
    // The gateway's start (publicEdge) and 10,000 requests; every span the SDK makes is counted.
    const edgeOf10000 = async (extra: Record<string, string>) => {
      const script = `
        const tracing = require(${JSON.stringify(path.join(repositoryRoot, 'libs/shared/dist/tracing/index.js'))});
        tracing.startTracing('gateway', process.env, { publicEdge: true });
        const tracer = require('@opentelemetry/api').trace.getTracer('gateway');
        const startSpan = tracer.startSpan;
        let made = 0;
        tracer.startSpan = function (...args) { made++; return startSpan.apply(this, args); };
        let sampled = 0, wellFormed = 0;
        const traceIds = new Set();
        for (let i = 0; i < 10000; i++) {
          const edge = tracing.edgeSpan('POST', '/api/x', '/api/x', undefined);
          const headers = {};
          edge.inject(headers);
          if (/^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-0[01]$/.test(headers.traceparent)) wellFormed++;
          if (headers.traceparent.endsWith('-01')) sampled++;
          traceIds.add(headers.traceparent.slice(3, 35));
          edge.end(200);
        }
        process.stdout.write(JSON.stringify({ made, sampled, wellFormed, distinct: traceIds.size }));
        process.exit(0);
      `;
      const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_SAMPLER: undefined, OTEL_TRACES_SAMPLER_ARG: undefined, ...extra };
      const child = spawn(process.execPath, ['-e', script], { cwd: path.join(repositoryRoot, 'libs/shared'), env, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      await new Promise((resolve) => child.once('exit', resolve));
      return JSON.parse(out) as { made: number; sampled: number; wellFormed: number; distinct: number };
    };
    const byDefault = await edgeOf10000({});
    expect(byDefault).toMatchObject({ wellFormed: 10000, distinct: 10000 });
    expect(byDefault.sampled).toBeGreaterThan(40);
    expect(byDefault.sampled).toBeLessThan(160);
    // A span for each request drawn, and for no other.
    expect(byDefault.made).toBe(byDefault.sampled);
    expect(await edgeOf10000({ OTEL_TRACES_SAMPLER: 'always_off' })).toMatchObject({ made: 0, sampled: 0, wellFormed: 10000, distinct: 10000 });
    expect(await edgeOf10000({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' })).toMatchObject({ made: 10000, sampled: 10000 });
    // Half of 10,000, standard deviation 50: 4,700 to 5,300 is six of them either way.
    const half = await edgeOf10000({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' });
    expect(half.made).toBe(half.sampled);
    expect(half.sampled).toBeGreaterThan(4700);
    expect(half.sampled).toBeLessThan(5300);
  }, 60_000);

  it('when OTEL_TRACES_SAMPLER is read for the public edge, then it decides as the SDK would for a request without a parent', () => {
    expect(edgeSampleRatio({})).toBe(DEFAULT_SAMPLE_RATIO);
    expect(edgeSampleRatio({ OTEL_TRACES_SAMPLER: ' ' })).toBe(DEFAULT_SAMPLE_RATIO);
    expect(edgeSampleRatio({ OTEL_TRACES_SAMPLER: 'always_on' })).toBe(1);
    expect(edgeSampleRatio({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toBe(0);
    expect(edgeSampleRatio({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toBe(0.25);
    expect(edgeSampleRatio({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: ' 0 ' })).toBe(0);
    // Blank, not a number, or outside [0, 1]: the SDK's own default ratio, 1.
    expect(edgeSampleRatio({ OTEL_TRACES_SAMPLER: 'traceidratio' })).toBe(1);
    expect(edgeSampleRatio({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' })).toBe(1);
    expect(edgeSampleRatio({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toBe(1);
    // A sampler the SDK does not know: left to the SDK (which falls back to always_on and says so).
    expect(edgeSampleRatio({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toBeUndefined();
    expect(edgeSampleRatio({ OTEL_TRACES_SAMPLER: ' always_off' })).toBeUndefined();
  });

  it('when a sampled request runs in its request scope, then its span and its request id both hold across awaits, in one storage', async () => {
    buildWorkspaces();
    // traceIncoming, then the request scope (as auth's app runs them), then nested and bound contexts:
    // the trace context lives in the request scope's storage, and neither replaces the other.
    const script = `
      const tracing = require(${JSON.stringify(path.join(repositoryRoot, 'libs/shared/dist/tracing/index.js'))});
      tracing.startTracing('probe');
      const { trace, context } = require('@opentelemetry/api');
      const { withRequestId, currentRequestId } = require(${JSON.stringify(path.join(repositoryRoot, 'libs/shared/dist/index.js'))});
      const seen = {};
      const traceId = () => trace.getActiveSpan()?.spanContext().traceId;
      const caller = '00-' + 'a'.repeat(32) + '-' + 'b'.repeat(16) + '-01';
      let later, finished;
      // Called here, outside any request: its callbacks run outside it too.
      new Promise((resolve) => (finished = resolve)).then(() => {
        seen.outside = [traceId() ?? null, currentRequestId() ?? null];
        const [boundTrace, boundRequest] = later();
        seen.bound = [boundTrace, boundRequest ?? null];
        process.stdout.write(JSON.stringify(seen));
        process.exit(0);
      });
      tracing.traceIncoming('probe')({ method: 'GET', url: '/x', headers: { traceparent: caller } }, { statusCode: 200, once() {} }, () =>
        withRequestId('req-1', async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          seen.afterAwait = [traceId(), currentRequestId()];
          const other = trace.wrapSpanContext({ traceId: 'c'.repeat(32), spanId: 'd'.repeat(16), traceFlags: 1 });
          seen.nested = context.with(trace.setSpan(context.active(), other), () => [traceId(), currentRequestId()]);
          seen.afterNested = [traceId(), currentRequestId()];
          later = context.bind(context.active(), () => [traceId(), currentRequestId()]);
          // The async-context storages that hold a value on a promise made here (Node 20 sets one
          // property per storage in use; Node 24's AsyncContextFrame none).
          seen.storages = Object.getOwnPropertySymbols(Promise.resolve()).filter((s) => s.description === 'kResourceStore').length;
        }).then(() => finished()),
      );
    `;
    const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_SAMPLER: 'always_on' };
    const child = spawn(process.execPath, ['-e', script], { cwd: path.join(repositoryRoot, 'libs/shared'), env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise((resolve) => child.once('exit', resolve));
    const seen = JSON.parse(out) as Record<string, unknown>;
    const a = 'a'.repeat(32);
    expect(seen.afterAwait).toEqual([a, 'req-1']);
    expect(seen.nested).toEqual(['c'.repeat(32), 'req-1']);
    expect(seen.afterNested).toEqual([a, 'req-1']);
    expect(seen.outside).toEqual([null, null]);
    // A function bound to a trace context runs in it; the request id is its caller's (none here).
    expect(seen.bound).toEqual([a, null]);
    expect(seen.storages).toBeLessThanOrEqual(1);
  }, 30_000);
});
