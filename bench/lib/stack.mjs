// The stack a bench run measures (this checkout's, or a built earlier one's for BENCH_BEFORE), started
// the way `npm start` does, and what the scenarios prepare on it: accounts, sessions, access tokens,
// second steps waiting for a code, a published release; and each stack process's CPU and memory.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Secret, TOTP } from 'otpauth';
import { cpuSeconds } from './processes.mjs';
import { ACCOUNTS, BCRYPT_COST, CONNECTIONS, root, say, started } from './context.mjs';

const require = createRequire(import.meta.url);
const deps = require('../../scripts/lib/dependencies.js');

// BENCH_PROFILE=<dir> writes a CPU profile of every stack process into <dir> (node --cpu-prof).
const profileDir = process.env.BENCH_PROFILE ? path.resolve(process.env.BENCH_PROFILE) : undefined;
// BENCH_ALLOC_PROFILE=<dir> writes where every stack process allocates into <dir> (bench/lib/allocation-sampling.cjs).
const allocDir = process.env.BENCH_ALLOC_PROFILE ? path.resolve(process.env.BENCH_ALLOC_PROFILE) : undefined;
const stackNodeArgs = [
  ...(profileDir ? [`--cpu-prof --cpu-prof-dir=${profileDir}`] : []),
  ...(allocDir ? [`--require ${path.join(root, 'bench', 'lib', 'allocation-sampling.cjs')}`] : []),
].join(' ');

/** The stack of this checkout, or of another built one (`checkout`, for a before/after run). */
export async function startStack(checkout = root, name = 'stack', extraEnv = {}) {
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

export async function post(url, body, headers = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json().catch(() => undefined), cookies: res.headers.getSetCookie() };
}

export async function seed(gatewayUrl) {
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

export function cookieOf(setCookie) {
  const list = Array.isArray(setCookie) ? setCookie : [setCookie];
  const header = list.find((c) => c?.startsWith('userRefreshToken='));
  return header?.split(';')[0];
}

export async function loginSessions(gatewayUrl, accounts) {
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
export async function authenticatorChallenges(gatewayUrl, count) {
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
export async function accessTokens(gatewayUrl, accounts) {
  const tokens = [];
  for (let i = 0; i < accounts.length; i += 4) {
    const logins = await Promise.all(accounts.slice(i, i + 4).map((a) => post(`${gatewayUrl}/api/auth/user/login`, { email: a.email, password: a.password })));
    tokens.push(...logins.map((l) => l.body.data.accessToken));
  }
  return tokens;
}

/** A linux release on the stack's desktop (its own MongoDB), so that the version check answers 200. */
export async function publishRelease(stack) {
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

/** The CPU seconds each stack process has used so far (for measure's `cpu`). */
export const stackCpu = (stack) => () => Object.fromEntries(Object.entries(stack.services ?? {}).filter(([, s]) => s.pid).map(([name, s]) => [name, cpuSeconds(s.pid)]));

export function rssMb(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
  } catch {
    return null;
  }
}
