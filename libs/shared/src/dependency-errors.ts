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
  if (/enableOfflineQueue|Connection is closed|Stream isn't writeable|Command timed out/i.test(err.message)) return true;
  // ioredis, when a connection closes under a pipeline or transaction it had only partly answered
  // (seen once in a Sentinel failover, where it was a 500).
  if (err.name === 'AbortError' && /^Command aborted due to connection close/.test(err.message)) return true;
  // A Redis Cluster whose slot has no master yet, or whose map is being refreshed; a Sentinel group's
  // old master that came back as a replica, or a node still loading; WAIT-less NOREPLICAS.
  return /^(CLUSTERDOWN|TRYAGAIN|READONLY|LOADING|MASTERDOWN|NOREPLICAS)\b|Too many Cluster redirections|Failed to refresh slots cache|None of startup nodes is available|Cluster isn't ready/.test(err.message);
}
