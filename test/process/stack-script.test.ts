// `npm start` as a person uses it: the stack comes up, answers 404 through the gateway with one
// request record in the gateway's log file, refuses a second start, and Ctrl-C stops it all.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import amqp from 'amqplib';
import Redis from 'ioredis';
import mongoose from 'mongoose';
import { loadNotifierConfig } from '@acct/notifier';
import { deleteRedisPrefix, testUrls } from '@acct/test-harness/isolation';
import { notifierQueues } from '@acct/test-stack/notifier';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const deps = require('../../scripts/lib/dependencies.js');

const root = path.resolve(__dirname, '..', '..');

/** What the stack left on the shared servers: its exchange and queues, its Redis keys and its databases. */
async function removeStackNames(isolation: Record<string, string>, amqpUrl: string): Promise<void> {
  const connection = await amqp.connect(amqpUrl);
  try {
    const channel = await connection.createChannel();
    for (const queue of notifierQueues(isolation.QUEUE_PREFIX, loadNotifierConfig({}).RETRY_DELAYS_MS)) await channel.deleteQueue(queue);
    await channel.deleteExchange(isolation.EVENTS_EXCHANGE);
  } finally {
    await connection.close();
  }
  const redis = new Redis(testUrls().redis);
  await deleteRedisPrefix(redis, isolation.REDIS_PREFIX_AUTH);
  await deleteRedisPrefix(redis, isolation.REDIS_PREFIX_NOTIFIER);
  await redis.del(isolation.REVOCATION_STREAM);
  await redis.quit();
  const mongo = await mongoose.createConnection(testUrls().mongo).asPromise();
  for (const db of [isolation.MONGO_DB_AUTH, isolation.MONGO_DB_DESKTOP, isolation.MONGO_DB_NOTIFIER]) await mongo.useDb(db, { useCache: false }).dropDatabase();
  await mongo.close();
}

function startStack(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'stack.mjs')], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(check: () => boolean, timeoutMs: number, what: string, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms; output:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('npm start (scripts/stack.mjs)', () => {
  it('starts the stack, answers 404 with a logged record, refuses a second start, and stops cleanly on Ctrl-C', async () => {
    const stackDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-stack-'));
    const port = await deps.freePort();
    // The pages are built into the test's own folder: other files' stacks serve apps/web/dist while
    // this one runs, and a build there empties it under them (a gateway starting then found an asset
    // listed and gone, 2026-11-28).
    const env = { PORT: String(port), STACK_DIR: stackDir, LOG_LEVEL: 'info', PAGES_DIR: path.join(stackDir, 'pages') };
    let isolation: Record<string, string> | undefined;
    let amqpUrl = '';
    const first = startStack(env);
    try {
      await waitFor(() => first.output().includes(`gateway: http://localhost:${port}`) || first.child.exitCode !== null, 90_000, 'no gateway URL', first.output);
      expect([first.child.exitCode, first.output()]).toEqual([null, expect.stringContaining(`gateway: http://localhost:${port}`)]);
      for (const name of ['auth', 'desktop', 'notifier', 'gateway']) expect(first.output()).toMatch(new RegExp(`\\[stack\\] ${name}\\s+ready`));
      // Each service runs with the heap budget its image sets.
      const heapFlag = /NODE_OPTIONS=(--max-old-space-size=\d+)/.exec(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8'))?.[1];
      const lock = JSON.parse(fs.readFileSync(path.join(stackDir, 'stack.json'), 'utf8')) as { services: Record<string, { pid: number }> };
      for (const [name, { pid }] of Object.entries(lock.services)) {
        expect([name, fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')]).toEqual([name, expect.arrayContaining([heapFlag])]);
      }

      // This checkout's own exchange, queues and key prefixes: another checkout or a test run never shares them.
      ({ isolation, amqpUrl } = JSON.parse(fs.readFileSync(path.join(stackDir, 'stack.json'), 'utf8')) as { isolation: Record<string, string>; amqpUrl: string });
      // Not the checkout's own names: a stack a person runs with `npm start` meanwhile keeps its queues.
      const checkoutId = `acct-${createHash('sha256').update(path.join(root, '.stack')).digest('hex').slice(0, 8)}`;
      expect(isolation.EVENTS_EXCHANGE.startsWith(checkoutId)).toBe(false);
      expect(isolation.EVENTS_EXCHANGE).toMatch(/^acct-[0-9a-f]{8}\.auth\.events$/);
      expect(isolation.REDIS_PREFIX_AUTH).toMatch(/^acct-[0-9a-f]{8}:auth:$/);
      const connection = await amqp.connect(amqpUrl);
      try {
        const channel = await connection.createChannel();
        await channel.checkExchange(isolation.EVENTS_EXCHANGE);
        expect((await channel.checkQueue(`${isolation.QUEUE_PREFIX}notifier.push`)).consumerCount).toBe(1);
      } finally {
        await connection.close();
      }

      const res = await fetch(`http://127.0.0.1:${port}/anything?probe=1`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ success: false, message: 'Route not found', code: 'not_found' });
      const logFile = path.join(stackDir, 'logs', 'gateway.log');
      await waitFor(() => fs.existsSync(logFile) && fs.readFileSync(logFile, 'utf8').includes('/anything?probe=1'), 5_000, 'no request record', first.output);
      const record = fs
        .readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((l) => l.includes('/anything?probe=1'))
        .map((l) => JSON.parse(l));
      expect(record).toEqual([expect.objectContaining({ level: 'warn', method: 'GET', path: '/anything?probe=1', status: 404, actor_type: 'anonymous' })]);

      // Auth reaches desktop: a user's export of their own data has desktop's part (not a 503).
      const account = { name: 'Stack User', email: `stack-${Date.now()}@example.com`, password: 'correct horse battery' };
      expect((await fetch(`http://127.0.0.1:${port}/api/auth/user/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) })).status).toBe(201);
      const login = await fetch(`http://127.0.0.1:${port}/api/auth/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) });
      const { accessToken } = ((await login.json()) as { data: { accessToken: string } }).data;
      const exported = await fetch(`http://127.0.0.1:${port}/api/auth/user/me/export`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(exported.status).toBe(200);
      expect(((await exported.json()) as { data: { desktop: unknown } }).data.desktop).toEqual(expect.objectContaining({ devices: [] }));

      const second = startStack(env);
      expect(await second.exited).toBe(1);
      expect(second.output()).toMatch(/already running/);
    } finally {
      first.child.kill('SIGINT');
    }
    // A stop that fails says why: the script's own lines and any that are not a service's JSON log
    // (a stack trace). Twice in five runs with five workers (2026-11-30) it exited 1 here, unexplained.
    const code = await first.exited;
    const said = first.output().split('\n').filter((line) => !/^\[(auth|gateway|desktop|notifier) *\] \{/.test(line));
    expect({ code, said: code === 0 ? [] : said.slice(-40) }).toEqual({ code: 0, said: [] });
    expect(first.output()).toContain('[stack] stopped');
    expect(await deps.isListening('127.0.0.1', port)).toBe(false);
    expect(fs.existsSync(path.join(stackDir, 'stack.json'))).toBe(false);
    fs.rmSync(stackDir, { recursive: true, force: true });
    if (isolation) await removeStackNames(isolation, amqpUrl);
  }, 120_000);
});

describe('the dependency probe', () => {
  it('asks a busy local port again before starting a server of its own, and says so', async () => {
    const net = await import('node:net');
    const port = await deps.freePort();
    const lines: string[] = [];
    // Nothing listens at first; a server comes up while the probe waits between tries.
    const late = net.createServer((socket) => socket.destroy());
    setTimeout(() => late.listen(port, '127.0.0.1'), 300);
    try {
      expect(await deps.answersOn(port, 'rabbitmq', (line: string) => lines.push(line))).toBe(true);
      expect(lines).toEqual([`rabbitmq: nothing answered on 127.0.0.1:${port} (try 1 of 3); asking again in 1 s`]);
    } finally {
      await new Promise((resolve) => late.close(resolve));
    }
    // Nothing at all: three tries, each said, then no.
    const empty = await deps.freePort();
    const said: string[] = [];
    expect(await deps.answersOn(empty, 'redis', (line: string) => said.push(line), 2)).toBe(false);
    expect(said).toHaveLength(1);
  });
});
