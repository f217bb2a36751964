// Which Redis a URL names: one server, a Redis Cluster (seed nodes) or a Sentinel group (sentinels
// and the master's name). One variable, REDIS_URL, in every service; the scheme says which:
//
//   redis://[user:password@]host:port[/db]                        one server (rediss:// for TLS)
//   redis+cluster://[user:password@]host:port[,host:port…]         a cluster, from any of its nodes
//   redis+sentinel://[user:password@]host:port[,host:port…]/master[/db]   the master a Sentinel group names
//
// (`rediss+cluster://` and `rediss+sentinel://` speak TLS.) The credentials are the data nodes'; a
// Sentinel group is given the same ones, the convention of the common charts (a sentinel without a
// password of its own ignores them). Reconnects, `MOVED`/`ASK` redirections and following a failover
// are ioredis' own: this file only chooses its options.
import Redis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import { redactUrl } from '../retry';
import type { RedisTopology } from './url';

export { parseRedisUrl, type RedisTopology } from './url';

/** A Redis client of any topology: the commands, scripts, MULTI and pipelines the stores use are the same on each. */
export type RedisClient = Redis | Cluster;


/** The per-connection behaviour every topology shares: fail fast while down (callers answer 503), reconnect forever. */
export interface RedisClientOptions {
  keyPrefix?: string;
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
}

/** A client for the topology, not yet connected (`lazyConnect`): `connect()` starts it. */
export function createRedisClient(topology: RedisTopology, options: RedisClientOptions = {}): RedisClient {
  const perConnection: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: options.connectTimeoutMs ?? 2_000,
    commandTimeout: options.commandTimeoutMs ?? 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  };
  switch (topology.kind) {
    case 'single':
      return new Redis(topology.url, { ...perConnection, keyPrefix: options.keyPrefix });
    case 'sentinel':
      return new Redis({
        ...perConnection,
        keyPrefix: options.keyPrefix,
        sentinels: topology.sentinels,
        name: topology.masterName,
        db: topology.db,
        ...topology.auth,
        sentinelUsername: topology.auth.username,
        sentinelPassword: topology.auth.password,
        ...(topology.tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
        // Subscribes to the sentinels' +switch-master, so a failover is followed at once rather than
        // on the next broken connection.
        failoverDetector: true,
        sentinelRetryStrategy: (times) => Math.min(times * 200, 2_000),
      });
    case 'cluster': {
      const clusterOptions: ClusterOptions = {
        lazyConnect: true,
        keyPrefix: options.keyPrefix,
        // While the cluster as a whole is not ready, fail fast (503), as a single server does.
        enableOfflineQueue: false,
        redisOptions: {
          ...topology.auth,
          ...(topology.tls ? { tls: {} } : {}),
          connectTimeout: perConnection.connectTimeout,
          commandTimeout: perConnection.commandTimeout,
          maxRetriesPerRequest: 1,
        },
        clusterRetryStrategy: (times) => Math.min(times * 200, 2_000),
        // A slot whose master just died answers CLUSTERDOWN or a closed connection until a replica is
        // promoted: retry after a slot refresh a few times, then fail the command (the caller answers 503).
        retryDelayOnFailover: 200,
        retryDelayOnClusterDown: 200,
        retryDelayOnTryAgain: 100,
        maxRedirections: 16,
        slotsRefreshTimeout: 2_000,
        // The slot map is read again every second (ioredis' default is 5 s), so a promoted replica
        // is found soon after the cluster has promoted it, not only after the next error.
        slotsRefreshInterval: 1_000,
      };
      return new Cluster(topology.nodes, clusterOptions);
    }
  }
}

/** Clients this process closes on purpose: their end is not a failure to repair. */
const closedOnPurpose = new WeakSet<RedisClient>();

export const wasClosedOnPurpose = (client: RedisClient): boolean => closedOnPurpose.has(client);

/**
 * Closes a client for good: QUIT (what it sent is answered first), then whatever it still holds
 * (a Sentinel client's failover-detector connections, which QUIT leaves open).
 */
export async function closeRedis(client: RedisClient): Promise<void> {
  closedOnPurpose.add(client);
  await client.quit().catch(() => undefined);
  client.disconnect();
  if (client instanceof Cluster) stopSlotRefreshes(client);
}

/**
 * A Cluster client closed while a `slotsRefreshInterval` refresh is in flight arms that interval's
 * timer again when the refresh ends ("Cluster is disconnected."), and from then on refreshes nothing
 * every second for the life of the process, a timer that keeps it from exiting (ioredis 5.11 and
 * 6.0, `resetNodesRefreshInterval`). Such a refresh's callbacks run in the order they were added,
 * the re-arming one first: one added now clears the timer it arms. ioredis' internals, so each is
 * looked for first; `libs/shared/test/redis-topology.test.ts` fails if the loop comes back.
 */
function stopSlotRefreshes(cluster: Cluster): void {
  const internals = cluster as unknown as {
    isRefreshing?: boolean;
    refreshSlotsCache?: (callback: () => void) => void;
    clearNodesRefreshInterval?: () => void;
  };
  const { refreshSlotsCache, clearNodesRefreshInterval } = internals;
  if (!internals.isRefreshing || typeof refreshSlotsCache !== 'function' || typeof clearNodesRefreshInterval !== 'function') return;
  refreshSlotsCache.call(cluster, () => clearNodesRefreshInterval.call(cluster));
}

/** A redacted description of the topology for a log line: never the password. */
export function describeTopology(topology: RedisTopology): string {
  const list = (hosts: Array<{ host: string; port: number }>) => hosts.map((h) => `${h.host}:${h.port}`).join(',');
  switch (topology.kind) {
    case 'single':
      return redactUrl(topology.url);
    case 'cluster':
      return `Redis Cluster via ${list(topology.nodes)}`;
    case 'sentinel':
      return `Redis master "${topology.masterName}" via sentinels ${list(topology.sentinels)}`;
  }
}
