// Recognises failures of a store or broker (not of the request), which answer 503 instead of 500.

const MONGO_UNAVAILABLE = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'MongoTopologyClosedError',
]);

export function isDependencyUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (MONGO_UNAVAILABLE.has(err.name)) return true;
  if (err.name === 'MongooseError' && /buffering|not connected|connection.*closed|initial connection/i.test(err.message)) return true;
  // ioredis with enableOfflineQueue off, a dropped connection, or a command timeout.
  if (err.name === 'MaxRetriesPerRequestError') return true;
  return /enableOfflineQueue|Connection is closed|Stream isn't writeable|Command timed out/i.test(err.message);
}
