// The request a piece of work belongs to, carried through async calls (AsyncLocalStorage): every log
// record written while handling a request, a job for it or an event it caused names its request_id
// without anyone passing it along.
import { AsyncLocalStorage } from 'node:async_hooks';

interface RequestScope {
  requestId?: string;
}

const scope = new AsyncLocalStorage<RequestScope>();

/** Runs `work` (and everything it starts) as part of the request `requestId`. */
export function withRequestId<T>(requestId: string | undefined, work: () => T): T {
  return scope.run({ requestId }, work);
}

/** The request id of the work under way, if it belongs to one. */
export function currentRequestId(): string | undefined {
  return scope.getStore()?.requestId;
}
