// The Sentinel group as compose (docker-compose.ha.yml) and Kubernetes (stores-ha) start it, with their
// own start scripts, run here on loopback ports from the machine's redis-server: kill the master, write
// to the one the sentinels promote, restart every node and sentinel at once, and read the write back.
// Before, the sentinels forgot the failover at a restart and the old master came back as master: the
// writes since (sessions, revocations) were undone.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { scaled } from '@acct/test-harness/time-scale';
import { until } from '@acct/test-harness/until';

const scripts = path.resolve(__dirname, '../../deploy/kubernetes/stores-ha');
const HOST = '127.0.0.1';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Member {
  port: number;
  child?: ChildProcess;
  start(): void;
  /** SIGKILL: gone without a goodbye. */
  kill(): void;
  stop(): Promise<void>;
}

describe('the Redis Sentinel group of compose and Kubernetes, restarted whole after a failover', () => {
  let dir: string;
  let nodes: Member[];
  let sentinels: Member[];
  const clients: Redis[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-sentinel-restart-'));
    // The images have redis-sentinel; this machine's package has redis-server --sentinel.
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'redis-sentinel'), '#!/bin/sh\nexec redis-server "$1" --sentinel\n', { mode: 0o755 });
    const nodePorts = [await freePort(), await freePort(), await freePort()];
    const sentinelPorts = [await freePort(), await freePort(), await freePort()];
    const member = (name: string, port: number, script: string, env: Record<string, string>): Member => {
      const folder = path.join(dir, name);
      fs.mkdirSync(folder);
      const m: Member = {
        port,
        start() {
          const log = fs.openSync(path.join(folder, 'start.log'), 'a');
          m.child = spawn('sh', [path.join(scripts, script)], { env: { PATH: `${bin}:${process.env.PATH}`, ...env }, stdio: ['ignore', log, log] });
        },
        kill() {
          m.child?.kill('SIGKILL');
        },
        // SIGTERM, again each second (a replica writing its first AOF refuses one), then SIGKILL at 15 s, as a container's stop.
        stop: () =>
          new Promise<void>((resolve) => {
            const child = m.child;
            if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
            let tries = 0;
            const again = setInterval(() => child.kill(++tries < 15 ? 'SIGTERM' : 'SIGKILL'), 1_000);
            child.once('exit', () => {
              clearInterval(again);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      };
      return m;
    };
    const askSentinels = (except?: number) => sentinelPorts.filter((p) => p !== except).map((p) => `${HOST}:${p}`).join(' ');
    nodes = nodePorts.map((port, i) =>
      member(`node-${i}`, port, 'redis-start.sh', {
        REDIS_SELF: HOST,
        REDIS_PORT: String(port),
        REDIS_DIR: path.join(dir, `node-${i}`),
        REDIS_FIRST_MASTER: `${HOST}:${nodePorts[0]}`,
        REDIS_SENTINELS: askSentinels(),
        REDIS_ASK_SECONDS: '10',
      }),
    );
    sentinels = sentinelPorts.map((port, i) =>
      member(`sentinel-${i}`, port, 'sentinel-start.sh', {
        SENTINEL_SELF: HOST,
        SENTINEL_PORT: String(port),
        SENTINEL_DIR: path.join(dir, `sentinel-${i}`),
        REDIS_FIRST_MASTER: `${HOST}:${nodePorts[0]}`,
        REDIS_SENTINELS: askSentinels(port),
        SENTINEL_DOWN_AFTER_MS: '1000',
        SENTINEL_FAILOVER_TIMEOUT_MS: '5000',
      }),
    );
  });

  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await Promise.all([...(nodes ?? []), ...(sentinels ?? [])].map((m) => m.stop()));
    if (!process.env.KEEP_DIR) fs.rmSync(dir, { recursive: true, force: true });
    else process.stdout.write(`kept ${dir}\n`);
  });

  /** The master's port as the sentinels name it (the first that answers). */
  async function masterPort(): Promise<number | undefined> {
    for (const s of sentinels) {
      const client = new Redis({ host: HOST, port: s.port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 1_000, commandTimeout: 1_000 }).on('error', () => undefined);
      try {
        await client.connect();
        const answer = (await client.call('SENTINEL', 'get-master-addr-by-name', 'acct')) as [string, string] | null;
        if (answer) return Number(answer[1]);
      } catch {
        // the next sentinel
      } finally {
        client.disconnect();
      }
    }
    return undefined;
  }

  /** Whether every sentinel has found the other two (a quorum can then promote a replica). */
  async function sentinelsMet(): Promise<boolean> {
    for (const s of sentinels) {
      const client = new Redis({ host: HOST, port: s.port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 1_000, commandTimeout: 1_000 }).on('error', () => undefined);
      try {
        await client.connect();
        const others = (await client.call('SENTINEL', 'sentinels', 'acct')) as unknown[];
        if (others.length < sentinels.length - 1) return false;
      } catch {
        return false;
      } finally {
        client.disconnect();
      }
    }
    return true;
  }

  const node = (port: number) => {
    const client = new Redis({ host: HOST, port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 1_000, commandTimeout: 2_000 }).on('error', () => undefined);
    clients.push(client);
    return client;
  };
  /** `master`, `replica` once in sync with its master, or undefined (down, or a replica still syncing). */
  const role = async (port: number) => {
    try {
      const info = await node(port).info('replication');
      if (/role:master/.test(info)) return 'master';
      return /master_link_status:up/.test(info) && !/master_sync_in_progress:1/.test(info) ? 'replica' : undefined;
    } catch {
      return undefined;
    }
  };

  it('keeps a write made after the failover: the promoted node stays master, the old one comes back a replica', async () => {
    for (const m of [...sentinels, ...nodes]) m.start();
    await until(
      async () => (await masterPort()) === nodes[0].port && (await role(nodes[1].port)) === 'replica' && (await role(nodes[2].port)) === 'replica' && (await sentinelsMet()),
      30_000,
      'the group up, node 0 master, every sentinel knowing the other two',
    );
    await node(nodes[0].port).set('written-before', 'yes');

    nodes[0].kill();
    await until(async () => {
      const now = await masterPort();
      return now !== undefined && now !== nodes[0].port && (await role(now)) === 'master';
    }, 30_000, 'a replica promoted');
    const promoted = (await masterPort()) as number;
    // A client whose commands may take longer than WAIT's own bound (the nodes' 2 s one would cut a
    // WAIT that a loaded machine keeps waiting, as one CI run saw).
    const master = new Redis({ host: HOST, port: promoted, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: 1_000, commandTimeout: 15_000 }).on('error', () => undefined);
    clients.push(master);
    await master.set('written-after-failover', 'kept');
    // On the other replica too before everything stops, as REDIS_WAIT_REPLICAS asks of auth.
    expect(Number(await master.call('WAIT', '1', '10000'))).toBeGreaterThanOrEqual(1);

    await Promise.all([...sentinels, ...nodes].map((m) => m.stop()));
    for (const m of [...sentinels, ...nodes]) m.start();

    await until(async () => (await masterPort()) === promoted && (await role(promoted)) === 'master' && (await role(nodes[0].port)) === 'replica', 40_000, 'the group up again, the promoted node master');
    const after = node(promoted);
    expect(await after.get('written-after-failover')).toBe('kept');
    expect(await after.get('written-before')).toBe('yes');
    // The old master follows and has the write too.
    await until(async () => (await node(nodes[0].port).get('written-after-failover')) === 'kept', 15_000, 'the old master caught up as a replica');
    // On the run's time scale, as every wait inside it is: a fixed bound cut the scaled waits short on a loaded CI run.
  }, scaled(150_000));
});
