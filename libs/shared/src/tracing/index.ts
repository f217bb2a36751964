// @acct/shared/tracing: OpenTelemetry tracing, off unless configured with the standard variables
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none turn it off; OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and OTEL_BSP_*
// as the SDK reads them). Spans for MongoDB, Redis, RabbitMQ and (in the notifier) HTTP
// calls out come from the official instrumentations (@acct/shared/instrumentations); auth, desktop
// and the gateway make their server spans by hand; W3C traceparent travels over HTTP and in
// message headers. Loaded only when on: a service without tracing loads none of the SDK.
// A service's entry point starts it before anything it instruments is loaded (src/instrument.ts).
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, context, propagation, trace, type Context, type ContextManager, type TextMapPropagator, type TextMapSetter } from '@opentelemetry/api';
import type { SpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { ExportResult } from '@opentelemetry/core';
import { randomFillSync } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import type { ExportThreadAnswer, ExportThreadRequest } from './export-worker';
import { loggablePath } from '../loggable-url';
import { currentTraceContext, enterTraceContext, withTraceContext } from '../request-context';

export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

let shutdown: (() => Promise<void>) | undefined;
/** Tracing started at the public edge, which keeps no active context (edgeSpan passes its own). */
let atPublicEdge = false;

/**
 * Whether log records can name the active span's trace (`trace_id`): tracing is on and the process
 * keeps an active context. Not at the public edge, where asking would answer nothing on every
 * record and still cost pino a mixin merge per record (about 0.45 µs of the request log's 3.2 µs).
 */
export function logsTraceIds(env: NodeJS.ProcessEnv = process.env): boolean {
  return tracingEnabled(env) && !atPublicEdge;
}

export interface TracingOptions {
  /**
   * The process takes requests from the internet (the gateway): a client's `traceparent` and
   * `baggage` are not trusted (they would force sampling and plant a trace id in our logs). Each
   * public request starts a new trace; a valid client trace id is kept as the attribute
   * `client.trace_id` only. Trace context still goes out to the services behind it. The edge
   * traces its requests itself (`edgeSpan`): no http or undici instrumentation runs there, whose
   * cost per request (traced or not) was most of what tracing cost the gateway.
   */
  publicEdge?: boolean;
  /**
   * Registers the service's library instrumentations once the provider is up (instrumentLibraries
   * from @acct/shared/instrumentations); not called at the public edge nor with tracing off.
   */
  instrument?: () => void;
}

/**
 * The share of requests traced when OTEL_TRACES_SAMPLER is not set: 1 %, which still traces 20
 * requests a second of a replica serving 2,000. Measured against tracing off (bench/RESULTS.md):
 * refresh loses about 3 % of its throughput at 1 % ("Refresh read under 5 %"), about 6 % at 5 %
 * ("Tracing's cost, paired").
 */
export const DEFAULT_SAMPLE_RATIO = 0.01;

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Starts tracing for `service` when configured; a no-op otherwise. */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env, options: TracingOptions = {}): void {
  if (shutdown || !tracingEnabled(env)) return;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  /* eslint-enable @typescript-eslint/no-require-imports */
  // At the public edge the share to trace is drawn by edgeSpan itself (edgeSampleRatio), before any
  // span exists; the SDK is then asked only for the spans to keep, and keeps each one it is asked for.
  const edgeRatio = options.publicEdge ? edgeSampleRatio(env) : undefined;
  const samplerName = configuredSampler(env);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? service }),
    // OTEL_TRACES_SAMPLER, when set, decides as the SDK reads it; unset, a trace starts for 1 % of
    // requests (and follows its parent's decision inside the stack), not for every one.
    ...(edgeRatio !== undefined
      ? { sampler: new AlwaysOnSampler() }
      : samplerName
        ? {}
        : { sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(DEFAULT_SAMPLE_RATIO) }) }),
    // Batches leave from a thread of their own (ThreadExporter): sent from the service's thread, they
    // cost refresh about 4 % of its throughput at a 5 % sampler.
    spanProcessors: [new BatchSpanProcessor(new ThreadExporter())],
  });
  // Inside the stack: W3C trace context and baggage, the SDK's default propagators. At the public
  // edge: trace context goes out to the services, nothing is taken in from a client.
  // The edge passes its contexts by hand (edgeSpan): no context manager, whose async hooks would
  // otherwise run on every promise of every request.
  // Behind it: the context lives in the request scope (requestScopeContextManager).
  provider.register(
    options.publicEdge ? { propagator: new OutboundOnly(new W3CTraceContextPropagator()), contextManager: null } : { contextManager: requestScopeContextManager() },
  );
  registered = true;
  atPublicEdge = options.publicEdge === true;
  edgeSampling = edgeRatio;
  // The default sampler and every `parentbased_*` one follow the caller's decision: a request whose
  // caller did not sample it is not traced here, and need not be looked at any further.
  followsParent = !samplerName || samplerName.startsWith('parentbased_');
  if (options.publicEdge) {
    shutdown = () => provider.shutdown();
    return;
  }
  options.instrument?.();
  shutdown = () => provider.shutdown();
}

/** How long the last spans may take to go out at exit (inside the drain budget: a dead collector must not race SIGKILL). */
export const TRACE_FLUSH_TIMEOUT_MS = 2_000;

/** Sends the spans still buffered, for at most `timeoutMs`; answers whether they went out in time. */
export async function stopTracing(timeoutMs = TRACE_FLUSH_TIMEOUT_MS): Promise<boolean> {
  if (!shutdown) return true;
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
  });
  const sent = shutdown().then(
    () => true,
    () => false,
  );
  const outcome = await Promise.race([sent, cut]);
  clearTimeout(timer);
  return outcome;
}

let registered = false;
let followsParent = true;
/** The share of public requests edgeSpan traces, drawn by itself; undefined: the SDK's sampler draws. */
let edgeSampling: number | undefined;

/**
 * OTEL_TRACES_SAMPLER as the SDK reads it: blank is unset; otherwise not trimmed (' always_off' is a
 * name the SDK does not know).
 */
function configuredSampler(env: NodeJS.ProcessEnv): string | undefined {
  const name = env.OTEL_TRACES_SAMPLER;
  return name?.trim() ? name : undefined;
}

/**
 * The share of requests the public edge traces, as the configured sampler would decide it for a
 * request without a parent (every request there is one: a client's trace context is not trusted,
 * so `parentbased_X` decides as `X`). Read as the SDK reads OTEL_TRACES_SAMPLER and its argument
 * (sdk-trace-base's buildSamplerFromEnv), unset being the 1 % default. Undefined for a name the SDK
 * would not know (it falls back to always_on with an error of its own): the SDK then decides.
 */
export function edgeSampleRatio(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const name = configuredSampler(env);
  if (!name) return DEFAULT_SAMPLE_RATIO;
  switch (name.replace(/^parentbased_/, '')) {
    case 'always_on':
      return 1;
    case 'always_off':
      return 0;
    case 'traceidratio': {
      // Blank, not a number or outside [0, 1]: the SDK's default ratio, 1.
      const raw = env.OTEL_TRACES_SAMPLER_ARG;
      const ratio = raw?.trim() ? Number(raw) : NaN;
      return ratio >= 0 && ratio <= 1 ? ratio : 1;
    }
    default:
      return undefined;
  }
}

/**
 * A public request the edge does not trace: only the trace context that tells the services behind it
 * so (W3C traceparent, flags 00, fresh random ids). No span of the SDK is made for it: creating one,
 * unsampled, cost the gateway 3 to 4 µs of a 49 µs refresh; with it gone, tracing that samples nothing
 * costs the gateway about 1.5 µs a refresh (bench/gateway-tracing.mjs, bench/RESULTS.md).
 */
class UntracedEdgeRequest implements EdgeSpan {
  constructor(private readonly traceparent: string) {}

  inject(headers: Record<string, unknown>): void {
    headers.traceparent = this.traceparent;
  }

  end(): void {}
}

// Ids for untraced requests, 24 random bytes each (trace id 16, span id 8), from one pool refilled
// 256 requests at a time.
const ID_BYTES = 24;
const idPool = Buffer.alloc(ID_BYTES * 256);
let idPoolAt = idPool.length;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

function untracedTraceparent(): string {
  if (idPoolAt === idPool.length) {
    randomFillSync(idPool);
    idPoolAt = 0;
  }
  const hex = idPool.toString('hex', idPoolAt, idPoolAt + ID_BYTES);
  idPoolAt += ID_BYTES;
  // All zeros is no id in W3C Trace Context (1 in 2^64 for a span id): the services would start a trace of their own.
  let traceId = hex.slice(0, 32);
  let spanId = hex.slice(32);
  if (traceId === ZERO_TRACE_ID) traceId = `${ZERO_TRACE_ID.slice(1)}1`;
  if (spanId === ZERO_SPAN_ID) spanId = `${ZERO_SPAN_ID.slice(1)}1`;
  return `00-${traceId}-${spanId}-00`;
}

export interface EdgeSpan {
  /** Adds the span's trace context (`traceparent`) to the headers of the call to a service. */
  inject(headers: Record<string, unknown>): void;
  /** Ends the span with the answer's status. */
  end(status: number): void;
}

/**
 * A server span for one public request, the root of its trace (whatever trace context the client
 * sent): `undefined` when tracing is off, so the request path pays nothing then. `path` may carry a
 * query string: the exporter blanks its secret values.
 */
export function edgeSpan(method: string, route: string, path: string, clientTraceparent: string | string[] | undefined): EdgeSpan | undefined {
  if (!registered) return undefined;
  // Not drawn for tracing (99 requests in 100 by default): no span at all, only its context.
  if (edgeSampling !== undefined && !(Math.random() < edgeSampling)) return new UntracedEdgeRequest(untracedTraceparent());
  // The attributes only for a span that is kept (one request in a hundred by default): the SDK
  // sanitises whatever it is given before it even asks the sampler.
  const span = trace.getTracer('gateway').startSpan(`${method} ${route}`, { kind: SpanKind.SERVER }, ROOT_CONTEXT);
  if (span.isRecording()) {
    const q = path.indexOf('?');
    span.setAttributes({
      'http.request.method': method,
      'http.route': route,
      'url.path': q < 0 ? path : path.slice(0, q),
      ...(q < 0 ? {} : { 'url.query': path.slice(q + 1) }),
      ...clientTraceAttribute(clientTraceparent),
    });
  }
  // A root span's whole context is its traceparent (no tracestate, no baggage at the edge): written
  // as W3C Trace Context spells it, without a context object and a propagator call per request.
  const { traceId, spanId, traceFlags } = span.spanContext();
  const traceparent = `00-${traceId}-${spanId}-${traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`;
  return {
    inject: (headers) => {
      headers.traceparent = traceparent;
    },
    end: (status) => {
      if (!span.isRecording()) return;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

/**
 * Whether traceIncoming may make a span for a request with this `traceparent`: tracing is on, and the
 * request is not one its caller left unsampled under a sampler that follows the caller. traceIncoming
 * passes every other request straight on; a path that answers before the middlewares (desktop's
 * version check) goes through them only then: behind a traced gateway every request carries a
 * traceparent, 99 % of them unsampled at the default ratio.
 */
export function mayTraceIncoming(traceparent: string | string[] | undefined): boolean {
  return registered && !(followsParent && unsampledParent(traceparent));
}

/** The caller's W3C traceparent says it did not sample the request (version 00, flags without the sampled bit). */
function unsampledParent(header: string | string[] | undefined): boolean {
  return typeof header === 'string' && header.length === 55 && header.startsWith('00-') && header[52] === '-' && (parseInt(header.slice(53), 16) & TraceFlags.SAMPLED) === 0;
}

interface IncomingRequest {
  method?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
  baseUrl?: string;
  route?: { path?: unknown };
}

/**
 * Middleware of a service behind the gateway: a server span for each request,
 * a child of the caller's trace context (W3C `traceparent`), so the parent's sampling decision holds;
 * a sampled request runs in its context, so store and broker spans and the outbox follow it.
 * Passes straight through when tracing is off.
 */
export function traceIncoming(service: string) {
  return (req: IncomingRequest, res: { statusCode: number; once(event: 'finish' | 'close', listener: () => void): unknown }, next: () => void): void => {
    // Tracing off; or not sampled by the caller, and the sampler follows the caller: nothing to
    // trace, and no context to parse or make (most requests, at the default ratio).
    if (!mayTraceIncoming(req.headers.traceparent)) return next();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = trace.getTracer(service).startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': q < 0 ? url : url.slice(0, q), ...(q < 0 ? {} : { 'url.query': url.slice(q + 1) }) } },
      parent,
    );
    // Not sampled (the caller's decision, or the ratio's): the request runs outside any span, so the
    // store and broker instrumentations skip their work at once (ioredis' alone cost 9 % of refresh
    // throughput when they made spans no one keeps). An event it writes then carries no trace context.
    if (!span.isRecording()) return next();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = typeof req.route?.path === 'string' ? `${req.baseUrl ?? ''}${req.route.path}` : undefined;
      if (route) {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(trace.setSpan(parent, span), next);
  };
}

/**
 * The SDK's AsyncLocalStorage context manager, with the context kept in the request scope's storage
 * (request-context.ts) instead of a storage of its own. On Node 20 every storage that has ever been
 * run adds its work to every promise the process makes, traced or not: the SDK's own storage, run
 * by the first sampled request, made a 60-promise request 45 % slower for good, sampled or not
 * (`node bench/async-storage.mjs`: 9.4 → 13.6 µs). `bind` (functions and event emitters) is the
 * SDK's, built on `active` and `with`.
 */
function requestScopeContextManager(): ContextManager {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  class RequestScopeContextManager extends AsyncLocalStorageContextManager {
    override active(): Context {
      return (currentTraceContext() as Context | undefined) ?? ROOT_CONTEXT;
    }

    override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
      return withTraceContext(ctx, thisArg == null ? fn : (fn.bind(thisArg) as F), ...args);
    }

    override attach(ctx: Context): { dispose(): void } {
      let restore: (() => void) | undefined = enterTraceContext(ctx);
      return {
        dispose: () => {
          restore?.();
          restore = undefined;
        },
      };
    }
  }
  return new RequestScopeContextManager();
}

/** A propagator that injects (outgoing calls) and never extracts (incoming requests start new traces). */
class OutboundOnly implements TextMapPropagator {
  constructor(private readonly inner: TextMapPropagator) {}

  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    this.inner.inject(context, carrier, setter);
  }

  extract(context: Context): Context {
    return context;
  }

  fields(): string[] {
    return this.inner.fields();
  }
}

/** The client's trace id, when it sent a well-formed traceparent, as an attribute of our own span. */
function clientTraceAttribute(header: string | string[] | undefined): Record<string, string> {
  const match = typeof header === 'string' ? TRACEPARENT.exec(header.trim()) : null;
  return match ? { 'client.trace_id': match[1] } : {};
}

const URL_ATTRIBUTES = ['url.full', 'url.query', 'http.url', 'http.target', 'url.path'];

/**
 * Sends batches to the collector from a worker thread (export-worker.ts): the batch's URL attributes
 * lose their secret query values (the request log's rule), then it is serialised here (OTLP JSON,
 * about 3 µs a span) and its bytes moved, not copied, to the thread, which runs the
 * SDK's OTLP/HTTP exporter with the same environment. Started at the first batch; it holds the
 * process open only while a batch or a flush is under way. A thread that fails is started again at
 * the next batch; the batches it held are reported as not sent.
 */
class ThreadExporter implements SpanExporter {
  private thread: { worker: Worker; waiting: Map<number, (answer: ExportThreadAnswer) => void> } | undefined;
  private nextId = 0;
  /* eslint-disable @typescript-eslint/no-require-imports */
  private readonly serializer = (require('@opentelemetry/otlp-transformer') as typeof import('@opentelemetry/otlp-transformer')).JsonTraceSerializer;
  private readonly codes = (require('@opentelemetry/core') as typeof import('@opentelemetry/core')).ExportResultCode;
  /* eslint-enable @typescript-eslint/no-require-imports */

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    scrubUrlAttributes(spans);
    const body = this.serializer.serializeRequest(spans);
    if (!body) return done({ code: this.codes.FAILED, error: new Error('nothing to send') });
    // Moved when the bytes own their whole buffer (TextEncoder's output does); copied otherwise.
    const transfer = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? [body.buffer as ArrayBuffer] : [];
    void this.call({ id: 0, type: 'export', batch: { body, spans: spans.length } }, transfer).then((answer) =>
      done(answer.ok ? { code: this.codes.SUCCESS } : { code: this.codes.FAILED, error: new Error(`spans not sent: ${answer.error}`) }),
    );
  }

  async forceFlush(): Promise<void> {
    if (this.thread) await this.call({ id: 0, type: 'flush' });
  }

  async shutdown(): Promise<void> {
    const thread = this.thread;
    if (!thread) return;
    await this.call({ id: 0, type: 'shutdown' });
    this.thread = undefined;
    await thread.worker.terminate();
  }

  private call(request: ExportThreadRequest, transfer: ArrayBuffer[] = []): Promise<ExportThreadAnswer> {
    const { worker, waiting } = (this.thread ??= this.start());
    const id = ++this.nextId;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      worker.ref();
      worker.postMessage({ ...request, id }, transfer);
    });
  }

  private start(): NonNullable<ThreadExporter['thread']> {
    // The compiled module beside this one (services run from dist). Its heap is bounded: batches
    // held for a collector that is down cannot grow it past 64 MB (the thread then stops, its batches
    // count as not sent, and the next batch starts another).
    const worker = new Worker(path.join(__dirname, 'export-worker.js'), { resourceLimits: { maxOldGenerationSizeMb: 64 } });
    const thread = { worker, waiting: new Map<number, (answer: ExportThreadAnswer) => void>() };
    worker.unref();
    worker.on('message', (answer: ExportThreadAnswer) => {
      thread.waiting.get(answer.id)?.(answer);
      thread.waiting.delete(answer.id);
      if (thread.waiting.size === 0) worker.unref();
    });
    let failure = 'the export thread stopped';
    worker.on('error', (err) => {
      failure = `the export thread failed: ${err.message}`;
    });
    worker.on('exit', () => {
      if (this.thread === thread) this.thread = undefined;
      for (const [id, resolve] of thread.waiting) resolve({ id, ok: false, error: failure });
      thread.waiting.clear();
    });
    return thread;
  }
}

/** Removes secret query values from URL attributes before any span leaves the process (the request log's rule). */
function scrubUrlAttributes(spans: ReadableSpan[]): void {
  for (const span of spans) {
    const attributes = span.attributes as Record<string, unknown>;
    for (const key of URL_ATTRIBUTES) {
      const value = attributes[key];
      if (typeof value !== 'string') continue;
      // url.query is the query string alone, without its '?'.
      attributes[key] = key === 'url.query' ? loggablePath(`?${value}`).slice(1) : loggablePath(value);
    }
  }
}
