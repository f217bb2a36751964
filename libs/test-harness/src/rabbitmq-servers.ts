// A real RabbitMQ cluster for the tests, from the machine's `rabbitmq-server`: its own node names,
// AMQP and distribution ports, config, data and log folders per node (the machine's own config pins
// port 5672 and its node name, so each node gets a file of its own), joined with
// `rabbitmqctl join_cluster`. Never the machine's own node; every node it starts is stopped by
// `stop()`. The server drops to the `rabbitmq` user: the folders are made its own.
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { withFreshStarts } from './fresh-start';
import { isFree } from './ports';
import { until } from './until';

const run = promisify(execFile);

/**
 * The nodes started here and not yet stopped, by name from the moment they are spawned: their Erlang
 * VMs are killed if the test process exits without stopping them, a node still booting included (a
 * `beforeAll` that ran out of time mid-start never gets the cluster to stop).
 */
const started = new Set<string>();
process.once('exit', () => {
  for (const name of started) killVms(name);
});

/** What marks a node as this test run's in its VM's environment: the run's global teardown finds them by it. */
const RUN_MARK = 'ACCT_TEST_RUN';

/**
 * Kills every node this test run started that is still there. The run's global teardown calls it
 * last: a jest worker that is ended rather than left to exit never runs its `exit` handler, and a
 * `beforeAll` that timed out mid-start never had a cluster to stop.
 */
export function killRabbitNodesOfRun(run: string): number {
  const mark = `${RUN_MARK}=${run}`;
  const found = vmsWhere((environ) => environ.includes(mark));
  for (const pid of found) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return found.length;
}

export interface RabbitNode {
  name: string;
  port: number;
  url: string;
  /** SIGKILL of the node's Erlang VM: gone without a goodbye, as a crashed host is. */
  kill(): Promise<void>;
  /** Starts it again with its data: it rejoins its cluster. */
  restart(): Promise<void>;
  readonly alive: boolean;
}

export interface RabbitCluster {
  dir: string;
  nodes: RabbitNode[];
  /** Every node's URL, comma-separated: an AMQP_URL. */
  url: string;
  /** The node that leads a quorum queue now. */
  leaderOf(queue: string): Promise<string | undefined>;
  /** The queues named with `prefix` or bound to its exchanges, as a live node sees them (type, state, where, leader, members, messages, consumers), and those bindings. */
  describeQueues(prefix: string): Promise<string>;
  stop(): Promise<void>;
}

/** Whether this machine has the `rabbitmq-server` the cluster tests start. */
export function hasRabbitmqServer(): boolean {
  return spawnSync('sh', ['-c', 'command -v rabbitmq-server && command -v rabbitmqctl'], { encoding: 'utf8' }).status === 0;
}


/** A base port whose AMQP port, distribution port and the CLI's range above it (+10000 … +10010) are all free. */
async function freeBase(taken: number[]): Promise<number> {
  for (;;) {
    const base = 30_000 + Math.floor(Math.random() * 20_000);
    const wanted = [base, base + 1, ...Array.from({ length: 11 }, (_, i) => base + 1 + 10_000 + i)];
    if (wanted.some((p) => p > 65_535 || taken.some((t) => Math.abs(t - p) < 12))) continue;
    if ((await Promise.all(wanted.map(isFree))).every(Boolean)) return base;
  }
}

const ctl = (node: string, ...args: string[]) => run('rabbitmqctl', ['-n', node, ...args], { timeout: 120_000, cwd: os.tmpdir() });

/**
 * A read of a running cluster (queues, bindings), bounded: a node whose peer was just killed can
 * wait on that peer's queues far longer than a poll may, so each answer is given 10 s (the CLI's own
 * `--timeout`, in seconds) and the command killed 5 s after that; the caller asks the next node.
 */
const query = (node: string, ...args: string[]) => run('rabbitmqctl', ['-n', node, '--timeout', '10', ...args], { timeout: 15_000, cwd: os.tmpdir() });

/**
 * The Erlang VMs of a node, found by the node name in their environment (the name is not on their
 * command line): for a node that never answered, or whose answer was lost.
 */
function vmsOf(name: string): number[] {
  return vmsWhere((environ) => environ.includes(`RABBITMQ_NODENAME=${name}`));
}

function vmsWhere(test: (environ: string[]) => boolean): number[] {
  const found = spawnSync('pgrep', ['-x', 'beam.smp'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
  return found.filter((pid) => {
    try {
      return test(fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0'));
    } catch {
      return false;
    }
  });
}

function killVms(name: string): void {
  for (const pid of vmsOf(name)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * A cluster of `size` nodes (3 unless told), all running and joined. A start that fails (a node
 * that stops again at once, a port another process took meanwhile, on a busy machine) is stopped
 * and made again from scratch, on new ports: at most three attempts, the last failure thrown.
 */
export function startRabbitCluster(options: { size?: number } = {}): Promise<RabbitCluster> {
  return withFreshStarts('a RabbitMQ cluster', () => startRabbitClusterOnce(options));
}

async function startRabbitClusterOnce(options: { size?: number }): Promise<RabbitCluster> {
  const size = options.size ?? 3;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-rabbitmq-cluster-'));
  fs.chmodSync(dir, 0o755);
  const id = path.basename(dir).split('-').pop()!.toLowerCase().replace(/[^a-z0-9]/g, '');
  const bases: number[] = [];
  for (let i = 0; i < size; i++) bases.push(await freeBase(bases));
  const nodes = bases.map((base, i) => defineNode(dir, `acct${id}n${i + 1}@localhost`, base));
  const cluster: RabbitCluster = {
    dir,
    nodes,
    url: nodes.map((n) => n.url).join(','),
    async leaderOf(queue) {
      for (const node of nodes.filter((n) => n.alive)) {
        try {
          const { stdout } = await query(node.name, '-q', 'list_queues', 'name', 'leader', '--no-table-headers');
          const line = stdout.split('\n').find((l) => l.split('\t')[0] === queue);
          if (line) return line.split('\t')[1]?.trim();
        } catch {
          // the next node answers
        }
      }
      return undefined;
    },
    async describeQueues(prefix) {
      for (const node of nodes.filter((n) => n.alive)) {
        try {
          // The queues bound to the prefix's exchanges (a test's own tap queue included), and the prefix's own.
          const bindings = (await query(node.name, '-q', 'list_bindings', 'source_name', 'destination_name', 'routing_key', '--no-table-headers')).stdout
            .split('\n')
            .filter((l) => l.startsWith(prefix));
          const bound = new Set(bindings.map((l) => l.split('\t')[1]));
          const columns = ['name', 'type', 'durable', 'exclusive', 'state', 'pid', 'leader', 'members', 'online', 'messages_ready', 'messages_unacknowledged', 'consumers'];
          const { stdout } = await query(node.name, '-q', 'list_queues', ...columns, '--no-table-headers');
          const lines = stdout.split('\n').filter((l) => l.startsWith(prefix) || bound.has(l.split('\t')[0]));
          return `as ${node.name} sees them (${columns.join(', ')}):\n${lines.join('\n')}\nbindings from the exchanges (source, queue, key):\n${bindings.join('\n') || 'none'}`;
        } catch {
          // the next node answers
        }
      }
      return 'no node answered';
    },
    async stop() {
      await Promise.all(nodes.map((n) => (n as NodeInternals).shutdown()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(nodes.map((n) => (n as NodeInternals).start()));
    for (const node of nodes.slice(1)) {
      await ctl(node.name, 'stop_app');
      await ctl(node.name, 'reset');
      await ctl(node.name, 'join_cluster', nodes[0].name);
      await ctl(node.name, 'start_app');
    }
    await until(
      async () => {
        const { stdout } = await ctl(nodes[0].name, 'cluster_status', '--formatter', 'json');
        return (JSON.parse(stdout) as { running_nodes: string[] }).running_nodes.length === size;
      },
      60_000,
      `${size} running RabbitMQ nodes in one cluster`,
    );
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

interface NodeInternals extends RabbitNode {
  start(): Promise<void>;
  shutdown(): Promise<void>;
}

function defineNode(dir: string, name: string, base: number): NodeInternals {
  const home = path.join(dir, name.split('@')[0]);
  for (const sub of ['mnesia', 'log']) fs.mkdirSync(path.join(home, sub), { recursive: true });
  const config = path.join(home, 'rabbitmq.conf');
  fs.writeFileSync(config, [`listeners.tcp.local = 127.0.0.1:${base}`, 'loopback_users = none', ''].join('\n'));
  fs.writeFileSync(path.join(home, 'enabled_plugins'), '[].\n');
  spawnSync('chown', ['-R', 'rabbitmq:rabbitmq', dir]);
  let running = false;
  const env = {
    ...process.env,
    RABBITMQ_CONFIG_FILE: config,
    RABBITMQ_NODENAME: name,
    RABBITMQ_DIST_PORT: String(base + 1),
    RABBITMQ_MNESIA_BASE: path.join(home, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(home, 'log'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(home, 'enabled_plugins'),
    ...(process.env.TEST_RUN_ID ? { [RUN_MARK]: process.env.TEST_RUN_ID } : {}),
  };
  const logTail = () => {
    try {
      const lines = fs.readFileSync(path.join(home, 'log', `${name}.log`), 'utf8').trim().split('\n');
      // Its errors first (what stopped it), then its last lines.
      return [...lines.filter((l) => /\[(error|critical)\]/.test(l)).slice(-3), ...lines.slice(-3)].join(' | ').slice(-2000);
    } catch (err) {
      return `no log (${(err as Error).message})`;
    }
  };
  const node: NodeInternals = {
    name,
    port: base,
    url: `amqp://guest:guest@127.0.0.1:${base}`,
    get alive() {
      return running;
    },
    async start() {
      // A VM that dies at boot (a port taken meanwhile: eaddrinuse) leaves a crash dump: that start has
      // failed, now, and the cluster is made again on new ports (withFreshStarts) rather than waited for.
      const crashDump = path.join(home, 'log', 'erl_crash.dump');
      fs.rmSync(crashDump, { force: true });
      started.add(name);
      const child = spawn('rabbitmq-server', [], { env, cwd: os.tmpdir(), stdio: 'ignore', detached: true });
      child.unref();
      await until(
        async () => {
          if (fs.existsSync(crashDump)) throw new Error(`RabbitMQ node ${name} died at start (its log ends: ${logTail()})`);
          return ctl(name, '-q', 'await_startup', '--timeout', '10').then(() => true).catch(() => false);
        },
        120_000,
        () => `RabbitMQ node ${name} (its log ends: ${logTail()})`,
      );
      running = true;
    },
    async kill() {
      killVms(name);
      started.delete(name);
      running = false;
    },
    async restart() {
      await node.start();
    },
    async shutdown() {
      if (running) await ctl(name, 'stop').catch(() => undefined);
      // A node that never answered (a start that failed) or would not stop is killed.
      await node.kill();
    },
  };
  return node;
}
