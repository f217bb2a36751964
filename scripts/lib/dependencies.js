// Resolves the stack's infrastructure the same way for `npm start` and for the tests:
// a URL from the environment, else a server on the standard local port, else a local binary
// started in a temporary folder, else (tests only) testcontainers, else (MongoDB only) the stand-in.
'use strict';
const net = require('node:net');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

/** @param {string} host @param {number} port @param {number} [timeoutMs] */
function isListening(host, port, timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Whether a server answers on the local port, asked a few times: on a busy machine one unanswered
 * connect is no proof that nothing listens, and starting a second server beside a running one fails.
 * @param {number} port @param {string} what @param {(line: string) => void} [log]
 */
async function answersOn(port, what, log = () => undefined, tries = 3) {
  for (let attempt = 1; attempt <= tries; attempt++) {
    if (await isListening('127.0.0.1', port, 1_000 * attempt)) return true;
    if (attempt < tries) {
      log(`${what}: nothing answered on 127.0.0.1:${port} (try ${attempt} of ${tries}); asking again in ${attempt} s`);
      await new Promise((r) => setTimeout(r, 1_000 * attempt));
    }
  }
  return false;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** @param {string} bin */
function which(bin) {
  const found = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

async function waitForPort(port, timeoutMs, child, what) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before listening`);
    if (await isListening('127.0.0.1', port)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not listen on port ${port} within ${timeoutMs} ms`);
}

function tempDir(label) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `acct-${label}-`));
}

function stopChild(child, dir) {
  return () =>
    new Promise((resolve) => {
      const cleanup = () => {
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (!child || child.exitCode !== null) return cleanup();
      child.once('exit', cleanup);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
}

function dockerReachable() {
  if (process.env.DOCKER_HOST) return true;
  if (!fs.existsSync('/var/run/docker.sock')) return false;
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 5_000 });
  return info.status === 0;
}

async function startContainer(image, port, env = {}) {
  const { GenericContainer, Wait } = require('testcontainers');
  let container = new GenericContainer(image).withExposedPorts(port);
  if (Object.keys(env).length) container = container.withEnvironment(env);
  const started = await container.withWaitStrategy(Wait.forListeningPorts()).start();
  return { host: started.getHost(), port: started.getMappedPort(port), stop: () => started.stop() };
}

/**
 * @typedef {{ url: string, source: string, stop?: () => Promise<void> }} Resolved
 * @typedef {{ containers?: boolean, log?: (line: string) => void }} ResolveOptions
 */

/** @param {ResolveOptions} [options] @returns {Promise<Resolved>} */
async function resolveRedis(options = {}) {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, source: 'REDIS_URL' };
  const local = { url: 'redis://127.0.0.1:6379', source: 'local server on port 6379' };
  if (await answersOn(6379, 'redis', options.log)) return local;
  const bin = which('redis-server');
  if (bin) {
    options.log?.('redis: no server on 127.0.0.1:6379; starting redis-server on a free port…');
    const port = await freePort();
    const dir = tempDir('redis');
    const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    await waitForPort(port, 10_000, child, 'redis-server');
    return { url: `redis://127.0.0.1:${port}`, source: `redis-server started on port ${port}`, stop: stopChild(child, dir) };
  }
  if (options.containers && dockerReachable()) {
    const c = await startContainer('redis:7-alpine', 6379);
    return { url: `redis://${c.host}:${c.port}`, source: 'testcontainers redis:7-alpine', stop: c.stop };
  }
  throw new Error('Redis is missing: set REDIS_URL, start a server on 127.0.0.1:6379, or install redis-server');
}

/** @param {ResolveOptions} [options] @returns {Promise<Resolved>} */
async function resolveAmqp(options = {}) {
  if (process.env.AMQP_URL) return { url: process.env.AMQP_URL, source: 'AMQP_URL' };
  const local = { url: 'amqp://guest:guest@127.0.0.1:5672', source: 'local server on port 5672' };
  if (await answersOn(5672, 'rabbitmq', options.log)) return local;
  const bin = which('rabbitmq-server');
  if (bin) {
    options.log?.('rabbitmq: no broker on 127.0.0.1:5672; starting rabbitmq-server on a free port (up to a minute)…');
    const port = await freePort();
    const dir = tempDir('rabbitmq');
    const child = spawn(bin, [], {
      stdio: 'ignore',
      env: {
        ...process.env,
        RABBITMQ_NODE_PORT: String(port),
        RABBITMQ_NODENAME: `acct${port}@localhost`,
        RABBITMQ_DIST_PORT: String(await freePort()),
        RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
        RABBITMQ_LOG_BASE: path.join(dir, 'log'),
        RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
      },
    });
    try {
      await waitForPort(port, 60_000, child, 'rabbitmq-server');
    } catch (err) {
      // A broker that was still starting on the standard port makes ours exit: take that one.
      if (await answersOn(5672, 'rabbitmq', options.log, 1)) {
        options.log?.(`rabbitmq: ${err.message}, but a broker now answers on 127.0.0.1:5672: using it`);
        fs.rmSync(dir, { recursive: true, force: true });
        return local;
      }
      throw err;
    }
    return { url: `amqp://guest:guest@127.0.0.1:${port}`, source: `rabbitmq-server started on port ${port}`, stop: stopChild(child, dir) };
  }
  if (options.containers && dockerReachable()) {
    const c = await startContainer('rabbitmq:3-management-alpine', 5672);
    return { url: `amqp://guest:guest@${c.host}:${c.port}`, source: 'testcontainers rabbitmq:3', stop: c.stop };
  }
  throw new Error('RabbitMQ is missing: set AMQP_URL, start a server on 127.0.0.1:5672, or install rabbitmq-server');
}

/**
 * @param {ResolveOptions & { startStandin: () => Promise<Resolved> }} options
 * @returns {Promise<Resolved>}
 */
async function resolveMongo(options) {
  if (process.env.MONGO_URL) return { url: process.env.MONGO_URL, source: 'MONGO_URL' };
  // Tests never take whatever listens on 27017 (a developer's `npm start` stand-in, or anything
  // else): they use MONGO_URL or start their own server.
  const standardPort = options.standardPort ?? 27017;
  if (options.probeStandardPort !== false && (await answersOn(standardPort, 'mongodb', options.log))) {
    return { url: `mongodb://127.0.0.1:${standardPort}`, source: `local server on port ${standardPort}` };
  }
  const bin = which('mongod');
  if (bin) {
    const port = await freePort();
    const dir = tempDir('mongod');
    const child = spawn(bin, ['--port', String(port), '--bind_ip', '127.0.0.1', '--dbpath', dir], { stdio: 'ignore' });
    await waitForPort(port, 30_000, child, 'mongod');
    return { url: `mongodb://127.0.0.1:${port}`, source: `mongod started on port ${port}`, stop: stopChild(child, dir) };
  }
  if (options.containers && dockerReachable()) {
    const c = await startContainer('mongo:7', 27017);
    return { url: `mongodb://${c.host}:${c.port}`, source: 'testcontainers mongo:7', stop: c.stop };
  }
  return options.startStandin();
}

module.exports = { isListening, answersOn, freePort, which, waitForPort, resolveRedis, resolveAmqp, resolveMongo, stopChild, tempDir };
