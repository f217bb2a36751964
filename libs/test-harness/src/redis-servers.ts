// Real multi-node Redis for the tests, from the machine's `redis-server`, on free loopback ports in
// a temporary folder: a Redis Cluster (3 masters, 3 replicas) and a Sentinel group (a master, a
// replica, 3 sentinels). Never the machine's own Redis on 6379; every process it starts is stopped
// by `stop()`, or killed when the test process exits.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { withFreshStarts } from './fresh-start';
import { isFree } from './ports';
import { stopChild } from './processes';
import { until } from './until';

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? 'redis-server';
const REDIS_CLI = process.env.REDIS_CLI_BIN ?? 'redis-cli';
const run = promisify(execFile);

/**
 * A one-off client for a question to one node (PING, CLUSTER SLOTS, INFO): it gives up in 2 s, to
 * connect and to be answered, so a node that accepts and never answers fails the question, not the
 * poll around it (`until` can only give up between two questions).
 */
const probe = (port: number) =>
  new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 2_000, commandTimeout: 2_000 }).on('error', () => undefined);

export interface RedisProcess {
  port: number;
  /** Its exit code or signal when it has exited on its own (a port taken meanwhile, a bad option). */
  readonly exited: string | undefined;
  /** SIGKILL: the node is gone without a goodbye, as a crashed host is. */
  kill(): void;
  /** SIGKILL, and the wait until the process is gone (no handle of it left in this process). */
  stop(): Promise<void>;
  /** Starts it again on the same port and folder. */
  restart(): Promise<void>;
  readonly alive: boolean;
}

interface Servers {
  dir: string;
  nodes: RedisProcess[];
  stop(): Promise<void>;
}

export interface RedisClusterServers extends Servers {
  /** `redis+cluster://127.0.0.1:<p>,…`, for REDIS_URL. */
  url: string;
  /** The port of the master that serves `key`'s slot now. */
  masterOf(key: string): Promise<number>;
}

export interface RedisSentinelServers extends Servers {
  /** `redis+sentinel://127.0.0.1:<s>,…/<masterName>`, for REDIS_URL. */
  url: string;
  masterName: string;
  sentinels: RedisProcess[];
  /** The port the sentinels name as master now. */
  masterPort(): Promise<number>;
}

const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

/** Whether this machine has the `redis-server` the multi-node tests start. */
export function hasRedisServer(): boolean {
  return spawnSync(REDIS_SERVER, ['--version']).status === 0;
}

/** `count` free loopback ports whose port + 10000 (a cluster node's bus port) is free too. */
async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if (ports.includes(port) || ports.includes(port + 10_000) || ports.includes(port - 10_000)) continue;
    if ((await isFree(port)) && (await isFree(port + 10_000))) ports.push(port);
  }
  return ports;
}


function startProcess(dir: string, port: number, args: string[]): RedisProcess {
  let child: ChildProcess | undefined;
  let exited: string | undefined;
  const launch = () => {
    exited = undefined;
    const started = spawn(REDIS_SERVER, args, { cwd: dir, stdio: 'ignore' });
    alive.add(started);
    started.once('exit', (code, signal) => {
      alive.delete(started);
      if (child === started) exited = signal ?? `code ${code}`;
    });
    child = started;
  };
  launch();
  const node: RedisProcess = {
    port,
    get exited() {
      return exited;
    },
    kill() {
      const victim = child;
      child = undefined;
      victim?.kill('SIGKILL');
    },
    stop() {
      const victim = child;
      child = undefined;
      return stopChild(victim, 'SIGKILL');
    },
    async restart() {
      launch();
      await waitForPing(node, dir);
    },
    get alive() {
      return child !== undefined && child.exitCode === null;
    },
  };
  return node;
}

/** Waits until `node` answers PING; fails at once, with its log's last lines, when it exited instead. */
async function waitForPing(node: RedisProcess, dir: string): Promise<void> {
  const { port } = node;
  await until(
    async () => {
      if (node.exited) throw new Error(`redis-server on ${port} exited (${node.exited}): ${logTail(dir, port)}`);
      const client = probe(port);
      try {
        await client.connect();
        return (await client.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        client.disconnect();
      }
    },
    20_000,
    () => `redis-server on ${port} answering PING (${logTail(dir, port)})`,
  );
}

function logTail(dir: string, port: number): string {
  for (const name of [`${port}.log`, `sentinel-${port}.log`]) {
    try {
      return fs.readFileSync(path.join(dir, name), 'utf8').trim().split('\n').slice(-3).join(' | ');
    } catch {
      // not this one
    }
  }
  return 'no log';
}


async function stopAll(nodes: RedisProcess[], dir: string): Promise<void> {
  await Promise.all(nodes.map((node) => node.stop()));
  fs.rmSync(dir, { recursive: true, force: true });
}

const common = (dir: string, port: number) => ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--logfile', path.join(dir, `${port}.log`), '--protected-mode', 'no'];

/** One plain redis-server: for a test that cuts its connection with a TCP proxy, which a cluster's redirections would go around. */
export function startRedisServer(): Promise<{ url: string; stop(): Promise<void> }> {
  return withFreshStarts('a redis-server', startRedisServerOnce);
}

async function startRedisServerOnce(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-redis-'));
  const [port] = await freePorts(1);
  const node = startProcess(dir, port, common(dir, port));
  try {
    await waitForPing(node, dir);
  } catch (err) {
    await stopAll([node], dir);
    throw err;
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopAll([node], dir) };
}

/** A 6-node Redis Cluster: 3 masters with a replica each, all 16,384 slots covered. */
export function startRedisCluster(options: { nodeTimeoutMs?: number } = {}): Promise<RedisClusterServers> {
  return withFreshStarts('a Redis Cluster', () => startRedisClusterOnce(options));
}

async function startRedisClusterOnce(options: { nodeTimeoutMs?: number }): Promise<RedisClusterServers> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-redis-cluster-'));
  const ports = await freePorts(6);
  const nodes = ports.map((port) =>
    startProcess(dir, port, [
      ...common(dir, port),
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-node-timeout',
      String(options.nodeTimeoutMs ?? 2_000),
      // A replica with a stale view may still be promoted: the tests kill masters on purpose.
      '--cluster-replica-validity-factor',
      '0',
    ]),
  );
  const servers = { dir, nodes, stop: () => stopAll(nodes, dir) };
  try {
    await Promise.all(nodes.map((node) => waitForPing(node, dir)));
    // Not spawnSync: `create` waits seconds for the nodes to agree, and a file that starts other
    // servers at the same time (a Sentinel group, a RabbitMQ cluster) would wait on it in full.
    await run(REDIS_CLI, ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], { encoding: 'utf8', timeout: 30_000 }).catch(
      (err: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`redis-cli --cluster create failed: ${err.stdout ?? ''}${err.stderr ?? err.message}`);
      },
    );
    await until(async () => (await Promise.all(ports.map((p) => clusterState(p)))).every((s) => s === 'ok'), 20_000, 'the Redis Cluster to be ok on every node');
    // Its replicas sync after `create`: until then a write has no copy (and WAIT times out).
    await until(async () => (await Promise.all(ports.map(replicationInfo))).filter((info) => /role:master/.test(info) && /slave0:.*state=online/.test(info)).length === 3, 20_000, 'every master to have its replica online');
  } catch (err) {
    await servers.stop();
    throw err;
  }
  return {
    ...servers,
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    async masterOf(key) {
      for (const node of nodes.filter((n) => n.alive)) {
        const client = probe(node.port);
        try {
          await client.connect();
          const slot = (await client.call('CLUSTER', 'KEYSLOT', key)) as number;
          const shards = (await client.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number, string]]>;
          const owner = shards.find(([from, to]) => slot >= from && slot <= to);
          if (owner) return owner[2][1];
        } catch {
          // the next node answers
        } finally {
          client.disconnect();
        }
      }
      throw new Error(`no live node knows the master of ${key}`);
    },
  };
}

async function replicationInfo(port: number): Promise<string> {
  const client = probe(port);
  try {
    await client.connect();
    return await client.info('replication');
  } catch {
    return '';
  } finally {
    client.disconnect();
  }
}

async function clusterState(port: number): Promise<string> {
  const client = probe(port);
  try {
    await client.connect();
    const info = (await client.call('CLUSTER', 'INFO')) as string;
    return /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown';
  } catch {
    return 'down';
  } finally {
    client.disconnect();
  }
}

/** A master, one replica and three sentinels (quorum 2) watching them as `masterName`. */
export function startRedisSentinel(options: { masterName?: string; downAfterMs?: number } = {}): Promise<RedisSentinelServers> {
  return withFreshStarts('a Redis Sentinel group', () => startRedisSentinelOnce(options));
}

async function startRedisSentinelOnce(options: { masterName?: string; downAfterMs?: number }): Promise<RedisSentinelServers> {
  const masterName = options.masterName ?? 'acct';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-redis-sentinel-'));
  const [masterPort, replicaPort, ...sentinelPorts] = await freePorts(5);
  const master = startProcess(dir, masterPort, common(dir, masterPort));
  const replica = startProcess(dir, replicaPort, [...common(dir, replicaPort), '--replicaof', '127.0.0.1', String(masterPort)]);
  const sentinels = sentinelPorts.map((port) => {
    const file = path.join(dir, `sentinel-${port}.conf`);
    fs.writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `logfile ${path.join(dir, `sentinel-${port}.log`)}`,
        `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${masterName} ${options.downAfterMs ?? 1_000}`,
        `sentinel failover-timeout ${masterName} 5000`,
        `sentinel parallel-syncs ${masterName} 1`,
        '',
      ].join('\n'),
    );
    return startProcess(dir, port, [file, '--sentinel']);
  });
  const nodes = [master, replica, ...sentinels];
  const servers = { dir, nodes, stop: () => stopAll(nodes, dir) };
  const masterNow = async (): Promise<number> => {
    for (const sentinel of sentinels.filter((s) => s.alive)) {
      const client = probe(sentinel.port);
      try {
        await client.connect();
        const [, port] = (await client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as [string, string];
        return Number(port);
      } catch {
        // the next sentinel answers
      } finally {
        client.disconnect();
      }
    }
    throw new Error('no sentinel answers');
  };
  try {
    await Promise.all(nodes.map((node) => waitForPing(node, dir)));
    // Ready when the replica has synced and every sentinel has found the other two and the replica.
    await until(
      async () => {
        const infos = await Promise.all(
          sentinels.map(async (s) => {
            const client = probe(s.port);
            try {
              await client.connect();
              const fields = (await client.call('SENTINEL', 'MASTER', masterName)) as string[];
              const at = (name: string) => fields[fields.indexOf(name) + 1];
              return Number(at('num-other-sentinels')) === 2 && Number(at('num-slaves')) === 1;
            } catch {
              return false;
            } finally {
              client.disconnect();
            }
          }),
        );
        return infos.every(Boolean);
      },
      20_000,
      'the sentinels to know each other and the replica',
    );
    await until(async () => /slave0:.*state=online/.test(await replicationInfo(masterPort)), 20_000, 'the replica to be in sync');
  } catch (err) {
    await servers.stop();
    throw err;
  }
  return {
    ...servers,
    url: `redis+sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/${masterName}`,
    masterName,
    sentinels,
    masterPort: masterNow,
  };
}
