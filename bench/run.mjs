#!/usr/bin/env node
// `npm run bench`: starts the stack the way `npm start` does (or uses GATEWAY_URL), seeds accounts,
// and runs each scenario for a bounded time with autocannon from this separate process. Prints a
// progress line per scenario and a final table; records the machine and every number in
// bench/results/<date>-<host>.json and a row in bench/RESULTS.md. Exits 1 if a scenario failed.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { measure, meetingPoint, DURATION_S } from './lib/load.mjs';
import { Secret, TOTP } from 'otpauth';
import { measurePaced } from './lib/paced.mjs';
import { pairedCost } from './lib/paired.mjs';
import { cpuSeconds, spawnLines } from './lib/processes.mjs';
import { againstBare } from './scenarios/against-bare.mjs';

const require = createRequire(import.meta.url);
const bcrypt = require('bcrypt');
const deps = require('../scripts/lib/dependencies.js');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (line) => process.stdout.write(`[bench] ${line}\n`);
const BCRYPT_COST = Number(process.env.BCRYPT_COST ?? 12);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ACCOUNTS = Math.max(Number(process.env.BENCH_ACCOUNTS ?? 32), CONNECTIONS);
/** Second steps measured by the verify-otp scenario: one account and one login each. */
const OTP_ACCOUNTS = Number(process.env.BENCH_OTP_ACCOUNTS ?? 400);
const started = Date.now();
// BENCH_ONLY=refresh,404 runs only scenarios whose name contains one of the words.
const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',') : undefined;
// BENCH_PROFILE=<dir> writes a CPU profile of every stack process into <dir> (node --cpu-prof).
const wants = (name) => !only || only.some((word) => name.includes(word));
const profileDir = process.env.BENCH_PROFILE ? path.resolve(process.env.BENCH_PROFILE) : undefined;
// BENCH_ALLOC_PROFILE=<dir> writes where every stack process allocates into <dir> (bench/lib/allocation-sampling.cjs).
const allocDir = process.env.BENCH_ALLOC_PROFILE ? path.resolve(process.env.BENCH_ALLOC_PROFILE) : undefined;
const stackNodeArgs = [
  ...(profileDir ? [`--cpu-prof --cpu-prof-dir=${profileDir}`] : []),
  ...(allocDir ? [`--require ${path.join(root, 'bench', 'lib', 'allocation-sampling.cjs')}`] : []),
].join(' ');

/** The stack of this checkout, or of another built one (`checkout`, for a before/after run). */
async function startStack(checkout = root, name = 'stack', extraEnv = {}) {
  if (process.env.GATEWAY_URL && checkout === root) {
    say(`using the running stack at ${process.env.GATEWAY_URL}`);
    return { gatewayUrl: process.env.GATEWAY_URL, authUrl: process.env.AUTH_URL, services: {}, stop: async () => undefined };
  }
  const stackDir = path.join(root, 'bench', '.tmp', name);
  fs.rmSync(stackDir, { recursive: true, force: true });
  const port = await deps.freePort();
  say(`starting the stack (gateway on port ${port}, bcrypt cost ${BCRYPT_COST})…`);
  const child = spawn(process.execPath, [path.join(checkout, 'scripts', 'stack.mjs')], {
    cwd: checkout,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      STACK_DIR: stackDir,
      STACK_QUIET: '1',
      // Its own Redis keys: the bench's load must not spend the rate limits of a dev stack on this machine.
      REDIS_PREFIX: `bench:${name}:`,
      REVOCATION_STREAM: `bench:${name}:revocations`,
      BCRYPT_COST: String(BCRYPT_COST),
      // The scenarios hammer login from one address: the abuse limits would (rightly) stop them.
      RATE_LOGIN_IP_PER_MINUTE: '1000000',
      RATE_REGISTER_IP_PER_HOUR: '1000000',
      RATE_LOGIN_FAILURES_PER_ACCOUNT: '1000000',
      RATE_LOGIN_FAILURES_PER_ACCOUNT_IP: '1000000',
      RATE_OTP_IP_PER_MINUTE: '1000000',
      ...(stackNodeArgs ? { STACK_NODE_ARGS: stackNodeArgs } : {}),
      ...(allocDir ? { ALLOC_PROFILE_DIR: allocDir } : {}),
      ...extraEnv,
    },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  const lockFile = path.join(stackDir, 'stack.json');
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the stack exited early:\n${output}`);
    try {
      const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
      if (lock.ready) {
        say(`stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        return {
          ...lock,
          authUrl: `http://127.0.0.1:${lock.services.auth.port}`,
          stop: () =>
            new Promise((resolve) => {
              child.once('exit', resolve);
              child.kill('SIGINT');
            }),
        };
      }
    } catch {
      // not written yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGINT');
  throw new Error(`the stack was not ready within 90 s:\n${output}`);
}

async function post(url, body, headers = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json().catch(() => undefined), cookies: res.headers.getSetCookie() };
}

async function seed(gatewayUrl) {
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({ name: `Bench ${i}`, email: `bench-${Date.now()}-${i}@example.com`, password: 'bench password 1' }));
  for (let i = 0; i < accounts.length; i += 8) {
    await Promise.all(
      accounts.slice(i, i + 8).map(async (a) => {
        const res = await post(`${gatewayUrl}/api/auth/user/register`, a);
        if (res.status !== 201) throw new Error(`seeding answered ${res.status}: ${JSON.stringify(res.body)}`);
      }),
    );
  }
  return accounts;
}

async function bcryptCeiling() {
  const hash = await bcrypt.hash('bench password 1', BCRYPT_COST);
  const parallel = os.availableParallelism();
  const until = Date.now() + DURATION_S * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (Date.now() < until) {
        await bcrypt.compare('bench password 1', hash);
        // Counted as autocannon counts logins: only what completes inside the window. (Counting the
        // compares still running at the deadline overstated the ceiling by one per lane.)
        if (Date.now() <= until) done++;
      }
    }),
  );
  return { comparesPerSecond: Math.round((done / DURATION_S) * 10) / 10, parallel, cost: BCRYPT_COST };
}

function cookieOf(setCookie) {
  const list = Array.isArray(setCookie) ? setCookie : [setCookie];
  const header = list.find((c) => c?.startsWith('userRefreshToken='));
  return header?.split(';')[0];
}

async function loginSessions(gatewayUrl, accounts) {
  const pool = [];
  for (let i = 0; i < CONNECTIONS; i += 4) {
    const logins = await Promise.all(accounts.slice(i, i + 4).map((a) => post(`${gatewayUrl}/api/auth/user/login`, { email: a.email, password: a.password })));
    pool.push(...logins.map((l) => cookieOf(l.cookies)));
  }
  return pool;
}

/**
 * Accounts with a live authenticator app, each with a login waiting for its second step: their
 * secrets and challenge tokens. Made 8 at a time (two bcrypt hashes and compares each).
 */
async function authenticatorChallenges(gatewayUrl, count) {
  const prepared = [];
  for (let i = 0; i < count; i += 8) {
    const batch = Array.from({ length: Math.min(8, count - i) }, (_, j) => ({ name: `Otp ${i + j}`, email: `otp-${Date.now()}-${i + j}@example.com`, password: 'bench password 1' }));
    prepared.push(
      ...(await Promise.all(
        batch.map(async (a) => {
          await post(`${gatewayUrl}/api/auth/user/register`, a);
          const login = await post(`${gatewayUrl}/api/auth/user/login`, { email: a.email, password: a.password });
          const auth = { authorization: `Bearer ${login.body.data.accessToken}` };
          const { secret } = (await post(`${gatewayUrl}/api/auth/user/factors/totp`, {}, auth)).body.data;
          const confirmed = await post(`${gatewayUrl}/api/auth/user/factors/totp/confirm`, { code: new TOTP({ secret: Secret.fromBase32(secret) }).generate() }, auth);
          if (confirmed.status !== 200) throw new Error(`enrolling an authenticator answered ${confirmed.status}: ${JSON.stringify(confirmed.body)}`);
          const challenge = await post(`${gatewayUrl}/api/auth/user/login`, { email: a.email, password: a.password });
          return { secret, challengeToken: challenge.body.data.challenge_token };
        }),
      )),
    );
  }
  return prepared;
}

/** Access tokens of fresh logins, one per account. */
async function accessTokens(gatewayUrl, accounts) {
  const tokens = [];
  for (let i = 0; i < accounts.length; i += 4) {
    const logins = await Promise.all(accounts.slice(i, i + 4).map((a) => post(`${gatewayUrl}/api/auth/user/login`, { email: a.email, password: a.password })));
    tokens.push(...logins.map((l) => l.body.data.accessToken));
  }
  return tokens;
}

/**
 * The scenarios measured on this stack and, with BENCH_BEFORE, on an earlier checkout's in turns:
 * the routes that take an access token (live sessions' tokens, round robin), and the gateway's 404
 * and proxy paths.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const COMPARED = {
  'authenticated me': { request: { method: 'GET', path: '/api/auth/user/me' }, bearer: true, expectStatus: 200 },
  'authenticated sync': {
    request: { method: 'POST', path: '/api/desktop/sync', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ device: { id: 'bench-device', platform: 'linux', appVersion: '1.0.0' } }) },
    bearer: true,
    expectStatus: 200,
  },
  'compared 404': { request: { method: 'GET', path: '/no/such/route' }, expectStatus: 404 },
  'compared proxy': { request: { method: 'POST', path: '/api/auth/user/register', headers: { 'content-type': 'application/json' }, body: '{}' }, expectStatus: 400 },
  'compared version check': { request: { method: 'GET', path: '/api/desktop/latest-version?platform=linux' }, expectStatus: 200 },
};

/** A linux release on the stack's desktop (its own MongoDB), so that the version check answers 200. */
async function publishRelease(stack) {
  if (!stack.mongoUrl) return;
  await new Promise((resolve, reject) => {
    const cli = spawn(
      process.execPath,
      [path.join(root, 'services/desktop/dist/release-cli.js'), 'publish', '--platform', 'linux', '--version', `9.${Date.now() % 100000}.0`, '--url', 'https://downloads.example.com/bench', '--sha256', 'b'.repeat(64)],
      { cwd: root, env: { ...process.env, MONGO_URL: stack.mongoUrl, MONGO_DB: stack.isolation?.MONGO_DB_DESKTOP ?? 'desktop' }, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    cli.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`release tool exited ${code}`))));
  });
}

function comparedScenario(gatewayUrl, tokens, { request, bearer, expectStatus }) {
  let next = 0;
  const withToken = (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` } });
  return measure({ url: gatewayUrl, connections: CONNECTIONS, requests: [bearer ? { ...request, setupRequest: withToken } : request] }, { expectStatus });
}

function loginScenario(gatewayUrl, accounts, cpu, align) {
  let next = 0;
  return measure(
    {
      url: gatewayUrl,
      // Enough to keep every core's bcrypt busy, few enough that requests cut off at the end stay few.
      connections: Number(process.env.BENCH_LOGIN_CONNECTIONS ?? os.availableParallelism() * 2),
      requests: [
        {
          method: 'POST',
          path: '/api/auth/user/login',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => {
            const a = accounts[next++ % accounts.length];
            return { ...req, body: JSON.stringify({ email: a.email, password: a.password }) };
          },
        },
      ],
    },
    { expectStatus: 200, cpu, align },
  );
}

/**
 * Refresh under load from a pool of sessions, one per connection, fresh every run (a stopped run
 * drops the tokens of its in-flight requests): `present(token)` gives a request's headers,
 * `rotated(headers)` reads the next token from an answer, which replaces the one it rotated out.
 */
function rotatingRefresh(url, sessions, present, rotated, cpu, align) {
  const prepare = async () => {
    const pool = await sessions();
    return {
      requests: [
        {
          method: 'POST',
          path: '/api/auth/user/refresh',
          setupRequest: (req, context) => {
            context.token = pool.pop();
            return { ...req, headers: { ...req.headers, ...present(context.token) } };
          },
          onResponse: (status, _body, context, headers) => {
            pool.push((status === 200 && rotated(headers)) || context.token);
          },
        },
      ],
    };
  };
  return measure({ url, connections: CONNECTIONS }, { expectStatus: 200, prepare, cpu, align });
}

const headerOf = (headers, name) => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];

/** Refresh through the gateway, with the refresh cookie. */
function refreshScenario(gatewayUrl, accounts, cpu, align) {
  return rotatingRefresh(gatewayUrl, () => loginSessions(gatewayUrl, accounts), (cookie) => ({ cookie }), (headers) => cookieOf(headerOf(headers, 'set-cookie')), cpu, align);
}

/**
 * Refresh sent straight to auth the way the gateway sends it: the token in `x-refresh-token`, the
 * next one read from `x-set-refresh-token`, and, for a traced stack, a `traceparent` on every
 * request with 1 in 100 sampled (the gateway's default share). Sessions are opened through the
 * gateway; the measured load leaves it idle. Tracing's cost to auth alone.
 */
function authRefreshScenario(s, cpu, align) {
  const traceparent = () => `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-${Math.random() < 0.01 ? '01' : '00'}`;
  const sessions = async () => (await loginSessions(s.gatewayUrl, s.accounts)).map((cookie) => cookie.slice(cookie.indexOf('=') + 1));
  const present = (token) => ({
    'x-refresh-token': token,
    'x-client-ip': '127.0.0.1',
    'x-request-id': randomUUID(),
    ...(s.traced ? { traceparent: traceparent() } : {}),
  });
  return rotatingRefresh(s.authUrl, sessions, present, (headers) => headerOf(headers, 'x-set-refresh-token'), cpu, align);
}

async function steadyRefreshScenario(gatewayUrl, accounts, rate, cpu) {
  // Evenly paced (bench/lib/paced.mjs), with the same rotation: a session is lent to one request
  // at a time and comes back with the cookie of the answer.
  let pool = [];
  return measurePaced(
    {
      url: gatewayUrl,
      rate,
      connections: CONNECTIONS,
      cpu,
      prepare: async () => {
        pool = await loginSessions(gatewayUrl, accounts);
      },
      next: () => {
        const cookie = pool.pop();
        return cookie && { method: 'POST', path: '/api/auth/user/refresh', headers: { cookie }, context: cookie };
      },
      onResponse: (status, headers, cookie) => pool.push((status === 200 && cookieOf(headers['set-cookie'])) || cookie),
    },
    200,
  );
}

/**
 * BENCH_TRACING=compare: what tracing costs at its default settings, in this one run. A second
 * stack of this checkout runs beside the first with OTEL_EXPORTER_OTLP_ENDPOINT set (spans to
 * bench/otlp-sink.mjs; the sampler and everything else at their defaults, as production gets them),
 * and each scenario loads both stacks at once, each from its own client, round after round: the two
 * halves of a round share the machine's moment (their warm-ups and measured runs start together,
 * whatever each side's preparation took). (Measured one after the other, a 2-core VM's
 * refresh rounds read from -32 % to +22 % and 16 of them gave an interval of ±7.7 points; side by
 * side they read from -9 % to +9 % and 16 gave ±2.3: bench/RESULTS.md, "Side by side".) Answers
 * each side's mean throughput and CPU per request, and the cost round by round with its 95 %
 * interval. BENCH_TRACING=control runs the same with the second stack untraced: the difference two
 * identical stacks show, against which the cost is read.
 */
const TRACING_SCENARIOS = {
  '404': (s, align) => measure({ url: `${s.gatewayUrl}/no/such/route`, connections: CONNECTIONS }, { expectStatus: 404, cpu: stackCpu(s), align }),
  refresh: (s, align) => refreshScenario(s.gatewayUrl, s.accounts, stackCpu(s), align),
  'refresh at auth': (s, align) => authRefreshScenario(s, stackCpu(s), align),
  login: (s, align) => loginScenario(s.gatewayUrl, s.accounts, stackCpu(s), align),
};

// Twelve rounds by default: each takes one scenario's time for both sides, so twelve take what six
// in turns took.
const TRACING_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);

async function tracingCost(stack, accounts, scenario, control) {
  if (!Object.keys(TRACING_SCENARIOS).some((name) => wants(`tracing: ${name}`))) return;
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) throw new Error('BENCH_TRACING=compare starts its own traced stack: unset OTEL_EXPORTER_OTLP_* first');
  const sink = spawnLines(process.execPath, [path.join(root, 'bench', 'otlp-sink.mjs'), '0']);
  const sinkPort = Number(await sink.firstLine);
  let traced;
  try {
    // BENCH_TRACING=control: the second stack untraced too, to show what two stacks differ by alone.
    traced = await startStack(root, 'traced', control ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}` });
    // The sink's CPU is counted on the traced side as `collector`: on this machine it shares the
    // cores with the stack, where in production a collector runs elsewhere.
    const sides = { off: { ...stack, accounts }, on: { ...traced, traced: !control, services: { ...traced.services, collector: { pid: sink.child.pid } }, accounts: await seed(traced.gatewayUrl) } };
    for (const [name, work] of Object.entries(TRACING_SCENARIOS)) {
      await scenario(`tracing: ${name}`, async () => {
        const runs = { off: [], on: [] };
        const waits = [];
        for (let round = 0; round < TRACING_ROUNDS; round++) {
          // Each side's warm-up and measured run start together, whatever its `prepare` took (refresh's
          // logs in 16 sessions, bcrypt each); the wait is how far apart the windows would have been.
          const meet = meetingPoint(2);
          const roundWaits = [];
          const load = (s) => {
            const align = async (phase) => {
              const waited = await meet.wait();
              if (phase === 'measured') roundWaits.push(waited);
            };
            return work(s, align).finally(() => meet.leave());
          };
          // Both sides finish before a failure is thrown: the stacks are stopped only once neither is under load.
          const [off, on] = await Promise.allSettled([load(sides.off), load(sides.on)]);
          if (off.status === 'rejected') throw off.reason;
          if (on.status === 'rejected') throw on.reason;
          runs.off.push(off.value);
          runs.on.push(on.value);
          waits.push(Math.max(0, ...roundWaits));
        }
        const mean = (values) => (values.length ? Math.round((values.reduce((s, v) => s + v, 0) / values.length) * 10) / 10 : null);
        const side = (list) => ({
          requestsPerSecond: mean(list.map((r) => r.requestsPerSecond)),
          runs: list.map((r) => r.requestsPerSecond),
          cpuMicrosPerRequest: Object.fromEntries(['gateway', 'auth', 'collector'].map((svc) => [svc, mean(list.map((r) => r.cpuMicrosPerRequest?.[svc]).filter((v) => v !== undefined))])),
        });
        const off = side(runs.off);
        const on = side(runs.on);
        const cost = (a, b) => (a && b ? Math.round((1 - b / a) * 1000) / 10 : null);
        const cpuCost = (svc) => (off.cpuMicrosPerRequest[svc] && on.cpuMicrosPerRequest[svc] ? Math.round((on.cpuMicrosPerRequest[svc] / off.cpuMicrosPerRequest[svc] - 1) * 1000) / 10 : null);
        const cpuOf = (list) => list.map((r) => (r.cpuMicrosPerRequest?.gateway ?? 0) + (r.cpuMicrosPerRequest?.auth ?? 0));
        return {
          requestsPerSecond: on.requestsPerSecond,
          off,
          on,
          // The same cost taken round by round (each round measured both sides at once), with its
          // 95 % interval: what this run can tell apart from no cost at all.
          pairedThroughputCostPercent: pairedCost(runs.off.map((r) => r.requestsPerSecond), runs.on.map((r) => r.requestsPerSecond)),
          pairedCpuCostPercent: pairedCost(cpuOf(runs.off), cpuOf(runs.on), { more: true }),
          // Percent of throughput lost, and percent more CPU per request, with tracing on.
          throughputCostPercent: cost(off.requestsPerSecond, on.requestsPerSecond),
          cpuCostPercent: { gateway: cpuCost('gateway'), auth: cpuCost('auth') },
          ratio: ratio(on.requestsPerSecond, off.requestsPerSecond),
          // How long the earlier side waited for the other before a measured run (ms, mean and most):
          // the offset of the two windows had they not been started together.
          windowsAlignedMs: { mean: Math.round(mean(waits) ?? 0), most: Math.round(Math.max(0, ...waits)) },
          failed: [...runs.off, ...runs.on].some((r) => r.failed),
        };
      });
    }
  } finally {
    await traced?.stop();
    sink.child.kill('SIGTERM');
  }
}

/** The CPU seconds each stack process has used so far (for measure's `cpu`). */
const stackCpu = (stack) => () => Object.fromEntries(Object.entries(stack.services ?? {}).filter(([, s]) => s.pid).map(([name, s]) => [name, cpuSeconds(s.pid)]));

function rssMb(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
  } catch {
    return null;
  }
}

const ratio = (a, b) => (a && b ? Math.round((a / b) * 100) / 100 : null);

async function main() {
  say(`node ${process.version} (${process.execPath}), ${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? 'cpu unknown'}`);
  const stack = await startStack();
  const results = {};
  let failed = false;
  const scenario = async (name, work) => {
    if (!wants(name)) return {};
    say(`${name}…`);
    const result = await work();
    results[name] = result;
    if (result.failed) failed = true;
    say(`${name}: ${JSON.stringify(result)}`);
    return result;
  };
  try {
    say(`seeding ${ACCOUNTS} accounts…`);
    const accounts = await seed(stack.gatewayUrl);
    const ceiling = await scenario('bcrypt ceiling', bcryptCeiling);
    const login = await scenario('login', () => loginScenario(stack.gatewayUrl, accounts));
    // The ceiling again after the login run: the ratio is taken against the mean of the two, so a
    // drift of this VM's speed during the run moves both sides alike.
    const after = await scenario('bcrypt ceiling, again', bcryptCeiling);
    if (ceiling.comparesPerSecond && after.comparesPerSecond) {
      login.bcryptCeiling = Math.round(((ceiling.comparesPerSecond + after.comparesPerSecond) / 2) * 10) / 10;
      login.ratioToBcryptCeiling = ratio(login.requestsPerSecond, login.bcryptCeiling);
    }
    const refresh = await scenario('refresh', () => refreshScenario(stack.gatewayUrl, accounts, stackCpu(stack)));
    if (refresh.requestsPerSecond) refresh.perCore = Math.round(refresh.requestsPerSecond / os.availableParallelism());
    // The latency target is set at half the throughput target (2,000/s): a steady 1,000/s.
    await scenario('refresh at 1000/s', () => steadyRefreshScenario(stack.gatewayUrl, accounts, 1000, stackCpu(stack)));
    const cheap = { method: 'POST', path: '/api/auth/user/register', headers: { 'content-type': 'application/json' }, body: '{}' };
    const viaGateway = await scenario('proxy: through the gateway', () => measure({ url: stack.gatewayUrl, connections: CONNECTIONS, requests: [cheap] }, { expectStatus: 400 }));
    if (stack.authUrl) {
      const direct = await scenario('proxy: straight to auth', () => measure({ url: stack.authUrl, connections: CONNECTIONS, requests: [cheap] }, { expectStatus: 400 }));
      viaGateway.ratioToDirect = ratio(viaGateway.requestsPerSecond, direct.requestsPerSecond);
    }
    const notFound = await scenario('404: gateway', () => measure({ url: `${stack.gatewayUrl}/no/such/route`, connections: CONNECTIONS }, { expectStatus: 404 }));
    const bareResult = await scenario('404: bare node:http', async () => {
      const bare = spawnLines(process.execPath, [path.join(root, 'bench', 'bare-404.mjs')], { BARE_LOG: path.join(root, 'bench', '.tmp', 'bare-404.log') });
      const barePort = Number(await bare.firstLine);
      try {
        return await measure({ url: `http://127.0.0.1:${barePort}/no/such/route`, connections: CONNECTIONS }, { expectStatus: 404 });
      } finally {
        bare.child.kill('SIGTERM');
      }
    });
    notFound.ratioToBare = ratio(notFound.requestsPerSecond, bareResult.requestsPerSecond);

    if (wants('desktop latest-version') || wants('against bare') || wants('compared version check')) await publishRelease(stack);
    // The second step with an authenticator code: each request uses up one prepared challenge (and
    // its account's time step), so the run is a set number of them, not a time.
    await scenario('verify-otp: authenticator code', async () => {
      const prepared = await authenticatorChallenges(stack.gatewayUrl, OTP_ACCOUNTS);
      let i = 0;
      return measure(
        {
          url: stack.gatewayUrl,
          connections: Math.min(CONNECTIONS, prepared.length),
          amount: prepared.length,
          requests: [
            {
              method: 'POST',
              path: '/api/auth/verify-otp',
              headers: { 'content-type': 'application/json' },
              setupRequest: (req) => {
                const { secret, challengeToken } = prepared[i++ % prepared.length];
                // The next step's code: newer than the one the enrolment used, within the skew allowed.
                const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + 30_000 });
                return { ...req, body: JSON.stringify({ challenge_token: challengeToken, code }) };
              },
            },
          ],
        },
        { expectStatus: 200, cpu: stackCpu(stack) },
      );
    });
    await scenario('desktop latest-version', () => measure({ url: `${stack.gatewayUrl}/api/desktop/latest-version?platform=linux`, connections: CONNECTIONS }, { expectStatus: 200 }));
    await scenario('against bare: 404 and the version check', () => againstBare(stack, { root, connections: CONNECTIONS, rounds: ROUNDS, say }));

    if (['compare', 'control'].includes(process.env.BENCH_TRACING)) await tracingCost(stack, accounts, scenario, process.env.BENCH_TRACING === 'control');

    // The routes that take an access token. With BENCH_BEFORE=<a built checkout of an earlier
    // commit>, that checkout's stack runs beside this one and the two are measured in turns, twice
    // each, so that the machine's drift falls on both alike.
    if (Object.keys(COMPARED).some(wants)) {
      const tokens = await accessTokens(stack.gatewayUrl, accounts);
      let before;
      if (process.env.BENCH_BEFORE) {
        before = await startStack(path.resolve(process.env.BENCH_BEFORE), 'before');
        before.tokens = await accessTokens(before.gatewayUrl, await seed(before.gatewayUrl));
        if (wants('compared version check')) await publishRelease(before);
      }
      try {
        for (const [name, spec] of Object.entries(COMPARED)) {
          await scenario(name, async () => {
            const runs = { after: [], before: [] };
            for (let round = 0; round < ROUNDS; round++) {
              runs.after.push(await comparedScenario(stack.gatewayUrl, tokens, spec));
              if (before) runs.before.push(await comparedScenario(before.gatewayUrl, before.tokens, spec));
            }
            const mean = (list) => (list.length ? Math.round((list.reduce((s, r) => s + r.requestsPerSecond, 0) / list.length) * 10) / 10 : null);
            const all = [...runs.after, ...runs.before];
            return {
              requestsPerSecond: mean(runs.after),
              beforeRequestsPerSecond: mean(runs.before),
              ratioToBefore: ratio(mean(runs.after), mean(runs.before)),
              runs: Object.fromEntries(Object.entries(runs).map(([k, list]) => [k, list.map((r) => r.requestsPerSecond)])),
              p99Ms: runs.after.at(-1).p99Ms,
              failed: all.some((r) => r.failed),
            };
          });
        }
      } finally {
        await before?.stop();
      }
    }

    if (stack.services.auth?.pid && !only) {
      results.rssMb = Object.fromEntries(Object.entries(stack.services).map(([name, s]) => [name, rssMb(s.pid)]));
      say(`RSS (MB) after the HTTP scenarios: ${JSON.stringify(results.rssMb)}`);
    }

    if (stack.amqpUrl) {
      await scenario('notifier', async () => {
        // The notifier runs inside this process, with the heap budget the services run with.
        const run = spawnLines(process.execPath, ['--max-old-space-size=256', path.join(root, 'bench', 'notifier-throughput.mjs')], {
          AMQP_URL: stack.amqpUrl,
          REDIS_URL: stack.redisUrl,
          MONGO_URL: stack.mongoUrl,
        });
        const result = JSON.parse(await run.firstLine);
        return { ...result, failed: !(result.eventsPerSecond > 0) };
      });
    }
  } finally {
    await stack.stop();
  }

  const record = {
    date: new Date().toISOString(),
    host: os.hostname(),
    machine: { cores: os.availableParallelism(), cpu: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    bcryptCost: BCRYPT_COST,
    durationSeconds: DURATION_S,
    connections: CONNECTIONS,
    wallSeconds: Math.round((Date.now() - started) / 1000),
    results,
  };
  if (only) {
    // A partial run (for profiling or one scenario) is printed, not recorded beside full runs.
    printTable(results);
    say('BENCH_ONLY run: nothing written to bench/results or bench/RESULTS.md');
    return failed ? 1 : 0;
  }
  fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
  const file = path.join(root, 'bench', 'results', `${record.date.slice(0, 10)}-${record.host}.json`);
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  appendSummary(record);
  printTable(results);
  say(`written ${path.relative(root, file)} and bench/RESULTS.md in ${record.wallSeconds} s`);
  return failed ? 1 : 0;
}

// "Intel(R) Xeon(R) Processor" → "Intel Xeon": the machines behind one host name have differed.
const cpuName = (model = '') => model.replace(/\((R|TM)\)/g, '').replace(/\b(Processor|CPU)\b.*$/, '').replace(/\s+/g, ' ').trim() || '?';

/** Adds the run's row to the table of bench/RESULTS.md (made when missing). */
function appendSummary(record) {
  const file = path.join(root, 'bench', 'RESULTS.md');
  const r = record.results;
  const cell = (v) => (v === undefined || v === null ? '–' : String(v));
  if (!fs.existsSync(file)) {
    fs.writeFileSync(
      file,
      '# Benchmark results\n\nOne row per `npm run bench`; the full numbers are in `results/`.\n\n' +
        '| date | host | cpu | cores | node | cost | bcrypt/s | login/s | login÷bcrypt | refresh/s | refresh p99 ms @1000/s | proxy ratio | 404 ratio | desktop/s | notifier ev/s | notifier p99 ms @500/s | max RSS MB |\n' +
        '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n',
    );
  }
  const maxRss = r.rssMb ? Math.max(...Object.values(r.rssMb).filter((v) => v !== null)) : null;
  // The row goes at the end of the run table (the first table), before any section written below it.
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const header = lines.findIndex((line) => line.startsWith('| date | host |'));
  let end = header + 1;
  while (end + 1 < lines.length && lines[end + 1].startsWith('|')) end++;
  const row = `| ${record.date.slice(0, 16)} | ${record.host} | ${cpuName(record.machine.cpu)} | ${record.machine.cores} | ${record.machine.node} | ${record.bcryptCost} | ${cell(r.login?.bcryptCeiling ?? r['bcrypt ceiling']?.comparesPerSecond)} | ${cell(r.login?.requestsPerSecond)} | ${cell(r.login?.ratioToBcryptCeiling)} | ${cell(r.refresh?.requestsPerSecond)} | ${cell(r['refresh at 1000/s']?.p99Ms)} | ${cell(r['proxy: through the gateway']?.ratioToDirect)} | ${cell(r['404: gateway']?.ratioToBare)} | ${cell(r['desktop latest-version']?.requestsPerSecond)} | ${cell(r.notifier?.eventsPerSecond)} | ${cell(r.notifier?.steadyP99Ms)} | ${cell(maxRss)} |`;
  lines.splice(end + 1, 0, row);
  fs.writeFileSync(file, lines.join('\n'));
}

function printTable(results) {
  const rows = Object.entries(results)
    .filter(([name]) => name !== 'rssMb')
    .map(([name, r]) => ({
      scenario: name,
      'req/s': r.requestsPerSecond ?? r.comparesPerSecond ?? r.eventsPerSecond,
      p50: r.p50Ms ?? r.steadyP50Ms ?? '',
      p99: r.p99Ms ?? r.steadyP99Ms ?? '',
      errors: r.errors ?? '',
      'non-2xx/unexpected': r.unexpectedStatus ?? '',
      ratio: r.ratioToBcryptCeiling ?? r.ratioToDirect ?? r.ratioToBare ?? r.ratioToBefore ?? r.ratio ?? r.perCore ?? '',
      status: r.failed ? 'FAILED' : 'ok',
    }));
  console.table(rows);
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(`failed: ${err.stack ?? err.message}`);
    process.exit(1);
  },
);
