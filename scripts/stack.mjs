#!/usr/bin/env node
// `npm start`: the whole stack without Docker. Resolves MongoDB, Redis and RabbitMQ (URL from the
// environment, a server on the standard port, a local binary, and for MongoDB the in-memory
// stand-in), builds, starts the four services, waits until each is ready, and on Ctrl-C stops all
// it started. Logs go to the console and to LOG_DIR/<service>.log.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const deps = require('./lib/dependencies.js');
const { ensureDevKeys } = require('./lib/dev-keys.js');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stackDir = path.resolve(root, process.env.STACK_DIR ?? '.stack');
const logDir = path.resolve(root, process.env.LOG_DIR ?? path.join(stackDir, 'logs'));
const mailDir = path.resolve(root, process.env.MAIL_DIR ?? path.join(stackDir, 'mail'));
const lockFile = path.join(stackDir, 'stack.json');
const gatewayPort = Number(process.env.PORT ?? 8080);
const readyTimeoutMs = Number(process.env.STACK_READY_TIMEOUT_MS ?? 60_000);
// STACK_QUIET=1 keeps service logs out of the console (they still go to LOG_DIR), e.g. under load.
const quiet = process.env.STACK_QUIET === '1';
// STACK_NODE_ARGS adds node flags to every service (the benchmark's --cpu-prof).
const nodeArgs = (process.env.STACK_NODE_ARGS ?? '').split(' ').filter(Boolean);
// Each service's V8 heap budget, the one the image sets (Dockerfile, NODE_OPTIONS). Without a budget
// V8 sizes the heap from the host's memory and, on a large host, lets the old generation grow to 4×
// its live size between major collections: 150–175 MB RSS per service under load instead of ~120.
const heapFlag = '--max-old-space-size=256';
if (![...nodeArgs, process.env.NODE_OPTIONS ?? ''].some((arg) => arg.includes('--max-old-space-size'))) nodeArgs.unshift(heapFlag);

const say = (line) => process.stdout.write(`[stack] ${line}\n`);
const started = []; // things to stop, last started first
const children = new Map();
const ready = new Set();
let stopping = false;

function alreadyRunning() {
  try {
    const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
    process.kill(lock.pid, 0);
    return lock;
  } catch {
    return undefined;
  }
}

async function main() {
  const running = alreadyRunning();
  if (running) {
    say(`the stack is already running (pid ${running.pid}) at ${running.gatewayUrl}; stop it with Ctrl-C in its terminal or 'kill ${running.pid}'`);
    // Not a start: a script or a second terminal that asked for a stack must not take this for one.
    return 1;
  }
  if (await deps.isListening('127.0.0.1', gatewayPort)) {
    say(`port ${gatewayPort} is already in use by another program; set PORT to choose another gateway port`);
    return 1;
  }
  fs.mkdirSync(logDir, { recursive: true });
  fs.mkdirSync(mailDir, { recursive: true });
  fs.writeFileSync(lockFile, JSON.stringify({ pid: process.pid, gatewayUrl: `http://127.0.0.1:${gatewayPort}` }));
  started.push({ name: 'lock', stop: async () => fs.rmSync(lockFile, { force: true }) });

  say('building (tsc -b)…');
  const build = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('the build failed; see the errors above');
  // Into PAGES_DIR when it is given (the gateway serves them from there too), else apps/web/dist.
  const pagesDir = process.env.PAGES_DIR ? path.resolve(root, process.env.PAGES_DIR) : undefined;
  if (pagesDir) process.env.PAGES_DIR = pagesDir;
  say(`building the hosted pages (vite build apps/web${pagesDir ? ` into ${pagesDir}` : ''})…`);
  const vite = path.join(path.dirname(require.resolve('vite/package.json')), 'bin/vite.js');
  const outDir = pagesDir ? ['--outDir', pagesDir, '--emptyOutDir'] : [];
  const pages = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn', ...outDir], { cwd: path.join(root, 'apps/web'), stdio: 'inherit' });
  if (pages.status !== 0) throw new Error('the pages did not build; see the errors above');

  say('resolving dependencies…');
  const redis = await deps.resolveRedis({ log: say });
  if (redis.stop) started.push({ name: 'redis-server', stop: redis.stop });
  say(`redis: ${redis.source}`);
  say('rabbitmq: resolving (starting rabbitmq-server can take up to a minute)…');
  const amqp = await deps.resolveAmqp({ log: say });
  if (amqp.stop) started.push({ name: 'rabbitmq-server', stop: amqp.stop });
  say(`rabbitmq: ${amqp.source}`);
  const mongo = await deps.resolveMongo({ startStandin, log: say });
  if (mongo.stop) started.push({ name: 'mongodb', stop: mongo.stop });
  say(`mongodb: ${mongo.source}`);
  const smtp = process.env.SMTP_URL ?? '';
  say(smtp ? 'mail: SMTP_URL' : `mail: written as .eml files into ${path.relative(root, mailDir)}`);

  const keys = ensureDevKeys(path.join(stackDir, 'keys'));
  // This checkout's own names in shared servers: a second checkout, or a test run, against the same
  // Redis, RabbitMQ or MongoDB never sees this one's keys, queues or databases.
  const isolation = checkoutIsolation();
  say(`isolation: exchange ${isolation.EVENTS_EXCHANGE}, queues ${isolation.QUEUE_PREFIX}*, Redis keys ${isolation.REDIS_PREFIX_AUTH}* and ${isolation.REDIS_PREFIX_NOTIFIER}*, databases ${isolation.MONGO_DB_AUTH} …`);
  const common = {
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    // No load balancer to wait for: Ctrl-C stops at once (in-flight work still finishes).
    SHUTDOWN_DELAY_MS: process.env.SHUTDOWN_DELAY_MS ?? '0',
    EVENTS_EXCHANGE: isolation.EVENTS_EXCHANGE,
    MONGO_URL: mongo.url,
    REDIS_URL: redis.url,
    REVOCATION_STREAM: isolation.REVOCATION_STREAM,
    AMQP_URL: amqp.url,
    JWT_PUBLIC_KEY: process.env.JWT_PUBLIC_KEY ?? keys.publicKey,
  };
  // Ports are picked free just before each start; another program may still take one first, so a
  // service that could not bind is started again on new ports (the gateway's PORT stays as asked).
  // Desktop first: auth asks it for a user's part of an export (DESKTOP_URL).
  const [desktop, notifier] = await Promise.all([
    launch('desktop', async () => ({ ...common, MONGO_DB: isolation.MONGO_DB_DESKTOP, PORT: await deps.freePort(), HEALTH_PORT: await deps.freePort() })),
    launch('notifier', async () => ({ ...common, MONGO_DB: isolation.MONGO_DB_NOTIFIER, REDIS_PREFIX: isolation.REDIS_PREFIX_NOTIFIER, QUEUE_PREFIX: isolation.QUEUE_PREFIX, HEALTH_PORT: await deps.freePort(), SMTP_URL: smtp, MAIL_DIR: mailDir })),
  ]);
  const auth = await launch('auth', async () => ({
    ...common,
    MONGO_DB: isolation.MONGO_DB_AUTH,
    REDIS_PREFIX: isolation.REDIS_PREFIX_AUTH,
    PORT: await deps.freePort(),
    HEALTH_PORT: await deps.freePort(),
    JWT_PRIVATE_KEY: process.env.JWT_PRIVATE_KEY ?? keys.privateKey,
    DESKTOP_URL: `http://127.0.0.1:${desktop.env.PORT}`,
    // The mailed links open the gateway's own pages, on whatever port it was given.
    RESET_URL_BASE_USER: process.env.RESET_URL_BASE_USER ?? `http://localhost:${gatewayPort}/reset-password`,
    RESET_URL_BASE_ADMIN: process.env.RESET_URL_BASE_ADMIN ?? `http://localhost:${gatewayPort}/admin/reset-password`,
    EMAIL_LINK_URL_BASE: process.env.EMAIL_LINK_URL_BASE ?? `http://localhost:${gatewayPort}/account/email`,
    // As an OpenID provider (OPENID_PROVIDER=true): the issuer is the gateway, and without apps of its
    // own the desktop example (examples/desktop-sign-in.mjs) is one.
    OPENID_ISSUER: process.env.OPENID_ISSUER ?? `http://localhost:${gatewayPort}`,
    OPENID_CLIENTS:
      process.env.OPENID_CLIENTS ?? JSON.stringify([{ id: 'desktop', name: 'Desktop (example)', firstParty: true, native: true, redirectUris: ['http://127.0.0.1/callback'] }]),
  }));
  const backends = [auth, desktop, notifier];
  const gateway = await launch('gateway', async () => ({
    ...common,
    PORT: gatewayPort,
    HEALTH_PORT: await deps.freePort(),
    AUTH_URL: `http://127.0.0.1:${auth.env.PORT}`,
    DESKTOP_URL: `http://127.0.0.1:${desktop.env.PORT}`,
  }));
  const all = [...backends, gateway];
  for (const s of all) {
    say(`${s.name.padEnd(8)} ready  ${s.env.PORT ? `http 127.0.0.1:${s.env.PORT}  ` : ''}health 127.0.0.1:${s.env.HEALTH_PORT}  log ${path.relative(root, path.join(logDir, `${s.name}.log`))}`);
  }
  // What tools (the benchmark) need to find the running stack.
  fs.writeFileSync(
    lockFile,
    JSON.stringify({
      pid: process.pid,
      gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
      ready: true,
      services: Object.fromEntries(all.map((s) => [s.name, { pid: children.get(s.name)?.pid, port: s.env.PORT, healthPort: s.env.HEALTH_PORT }])),
      mongoUrl: mongo.url,
      isolation,
      redisUrl: redis.url,
      amqpUrl: amqp.url,
    }),
  );
  // localhost, not 127.0.0.1: a browser app served from http://localhost:<port> is then on the same site, and gets the cookie.
  say(`gateway: http://localhost:${gatewayPort}  (Ctrl-C stops the stack)`);
  say(`pages:   http://localhost:${gatewayPort}/register, /login and /account`);
  return undefined;
}

/**
 * Names of this stack's state in shared servers, from a hash of its folder (STACK_DIR, by default the
 * checkout's .stack: stable across restarts), so two checkouts, or `npm start` and a test that starts
 * a stack of its own folder, never share them; a variable set in the environment wins.
 */
function checkoutIsolation() {
  const id = `acct-${createHash('sha256').update(stackDir).digest('hex').slice(0, 8)}`;
  const env = (name, fallback) => process.env[name] ?? fallback;
  return {
    EVENTS_EXCHANGE: env('EVENTS_EXCHANGE', `${id}.auth.events`),
    QUEUE_PREFIX: env('QUEUE_PREFIX', `${id}.`),
    REDIS_PREFIX_AUTH: env('REDIS_PREFIX', `${id}:auth:`),
    REDIS_PREFIX_NOTIFIER: env('REDIS_PREFIX', `${id}:notifier:`),
    REVOCATION_STREAM: env('REVOCATION_STREAM', `${id}:revocations`),
    MONGO_DB_AUTH: `${id}-auth`,
    MONGO_DB_DESKTOP: `${id}-desktop`,
    MONGO_DB_NOTIFIER: `${id}-notifier`,
  };
}

async function startStandin() {
  // Never on 27017: whatever listens there is then a real MongoDB, never another checkout's stand-in.
  const port = await deps.freePort();
  const child = spawn(process.execPath, [path.join(root, 'libs/mongo-standin/dist/cli.js'), '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const logFile = fs.createWriteStream(path.join(logDir, 'mongo-standin.log'), { flags: 'a' });
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    logFile.write(`${line}\n`);
    process.stdout.write(`[mongo] ${line}\n`);
  });
  await deps.waitForPort(port, 10_000, child, 'the MongoDB stand-in');
  say('MongoDB: no MONGO_URL, no server on 27017 and no mongod binary, so the in-memory stand-in serves: NOT MongoDB, data is lost at exit');
  return { url: `mongodb://127.0.0.1:${port}`, source: `in-memory stand-in on port ${port}`, stop: deps.stopChild(child) };
}

/** Starts a service and waits until it is ready; one that could not bind its ports is started again on new ones. */
async function launch(name, makeEnv, attempts = 3) {
  for (let attempt = 1; ; attempt++) {
    const env = await makeEnv();
    const child = startService(name, env);
    try {
      await waitReady(name, env.HEALTH_PORT);
      ready.add(name);
      return { name, env };
    } catch (err) {
      if (attempt >= attempts || !portTaken(name, child)) throw err;
      say(`${name}: a port was taken meanwhile; starting it again on new ports`);
    }
  }
}

/** Whether a service's own output says it could not bind a port. */
function portTaken(name, child) {
  if (child.sawAddressInUse) return true;
  try {
    return fs.readFileSync(path.join(logDir, `${name}.log`), 'utf8').slice(-4096).includes('EADDRINUSE');
  } catch {
    return false;
  }
}

function startService(name, env) {
  const entry = path.join(root, 'services', name, 'dist', 'start.js');
  const logPath = path.join(logDir, `${name}.log`);
  // Quiet: the service writes its log file itself, as it would write to a container's log, with no
  // pipe through this script (which cost as much CPU as the gateway's own logging under load).
  const logFd = quiet ? fs.openSync(logPath, 'a') : undefined;
  const child = spawn(process.execPath, [...nodeArgs, '--enable-source-maps', entry], {
    cwd: root,
    env: { ...process.env, ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) },
    stdio: quiet ? ['ignore', logFd, logFd] : ['ignore', 'pipe', 'pipe'],
    // Its own process group: a terminal's Ctrl-C reaches only this script, which stops services in order.
    detached: true,
  });
  children.set(name, child);
  let logFile;
  if (quiet) {
    fs.closeSync(logFd);
  } else {
    logFile = fs.createWriteStream(logPath, { flags: 'a' });
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => {
        logFile.write(`${line}\n`);
        if (line.includes('EADDRINUSE')) child.sawAddressInUse = true;
        process.stdout.write(`[${name.padEnd(8)}] ${line}\n`);
      });
    }
  }
  // The log file ends once the child's output has all been read ('close'), not at its exit, when
  // its last lines may still sit in the pipes (written after end(), they were dropped).
  child.once('close', () => logFile?.end());
  child.once('exit', (code, signal) => {
    if (children.get(name) !== child) return;
    children.delete(name);
    // Before it is ready, launch() sees the exit and decides; after, the stack stops.
    if (!stopping && ready.has(name)) {
      say(`${name} exited unexpectedly (${signal ?? `code ${code}`}); stopping the stack`);
      void shutdown(1);
    }
  });
  return child;
}

async function waitReady(name, port) {
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (!children.has(name)) throw new Error(`${name} exited before it was ready; see ${path.join(logDir, `${name}.log`)}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} was not ready within ${readyTimeoutMs} ms; see ${path.join(logDir, `${name}.log`)}`);
}

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  say('stopping…');
  await Promise.all(
    [...children.entries()].map(
      ([, child]) =>
        new Promise((resolve) => {
          child.once('exit', resolve);
          child.kill('SIGTERM');
          // Past the services' own deadline (SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS).
          setTimeout(() => child.kill('SIGKILL'), 25_000).unref();
        }),
    ),
  );
  for (const thing of started.reverse()) {
    await thing.stop().catch((err) => say(`could not stop ${thing.name}: ${err.message}`));
  }
  say('stopped');
  process.exit(code);
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

main().then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (err) => {
    say(`failed: ${err.message}`);
    void shutdown(1);
  },
);
