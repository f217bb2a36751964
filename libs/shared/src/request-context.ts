// The request a piece of work belongs to, carried through async calls (AsyncLocalStorage): every log
// record written while handling a request, a job for it or an event it caused names its request_id
// without anyone passing it along. With tracing on, the same scope also carries the OpenTelemetry
// context (tracing's context manager keeps it here): one AsyncLocalStorage for both, because on
// Node 20 every storage in use adds its own work to every promise the process makes.
import { AsyncLocalStorage } from 'node:async_hooks';

interface RequestScope {
  requestId?: string;
  /** The OpenTelemetry context (an opaque value here: this module loads nothing of OpenTelemetry). */
  trace?: unknown;
}

const scope = new AsyncLocalStorage<RequestScope>();

/** Runs `work` (and everything it starts) as part of the request `requestId`, in the trace context it was called in. */
export function withRequestId<T>(requestId: string | undefined, work: () => T): T {
  return scope.run({ requestId, trace: scope.getStore()?.trace }, work);
}

/** The request id of the work under way, if it belongs to one. */
export function currentRequestId(): string | undefined {
  return scope.getStore()?.requestId;
}

/** The trace context of the work under way (set by withTraceContext), if any. */
export function currentTraceContext(): unknown {
  return scope.getStore()?.trace;
}

/** Runs `work(...args)` (and everything it starts) in the trace context `trace`, keeping the request id. */
export function withTraceContext<A extends unknown[], R>(trace: unknown, work: (...args: A) => R, ...args: A): R {
  return scope.run({ requestId: scope.getStore()?.requestId, trace }, work, ...args);
}

/**
 * Makes `trace` the trace context of the rest of the current execution and what it starts
 * (AsyncLocalStorage.enterWith); the answer puts the previous scope back.
 */
export function enterTraceContext(trace: unknown): () => void {
  const previous = scope.getStore();
  scope.enterWith({ requestId: previous?.requestId, trace });
  return () => scope.enterWith(previous as RequestScope);
}
