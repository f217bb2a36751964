// SIGTERM under load, on the real gateway process: readiness answers 503 at once, the listener
// serves until the drain delay and then takes no new connection, every request in flight completes,
// and the exit code tells a clean stop (0) from one cut at the deadline (1).
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { closeServer, listen } from '@acct/shared';
import { buildWorkspaces } from '@acct/test-harness/build';
import { testKeys } from '@acct/test-harness/keys';
import { scaled } from '@acct/test-harness/time-scale';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const deps = require('../../scripts/lib/dependencies.js');

const root = path.resolve(__dirname, '..', '..');
const { publicKey } = testKeys();

// The test runs the built gateway, as production does.
beforeAll(buildWorkspaces, 120_000);

/** An upstream whose login answers after `holdMs` (never, when Infinity). */
async function slowUpstream(holdMs: number) {
  const server = http.createServer((_req, res) => {
    if (holdMs === Infinity) return;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true, message: 'Login successful' }));
    }, holdMs);
  });
  const port = await listen(server, 0, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}`, close: () => (server.closeAllConnections(), closeServer(server)) };
}

async function startGateway(upstream: string, env: Record<string, string>) {
  const [port, healthPort] = [await deps.freePort(), await deps.freePort()];
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'services/gateway/dist/start.js')], {
    env: { ...process.env, PORT: String(port), HEALTH_PORT: String(healthPort), HOST: '127.0.0.1', AUTH_URL: upstream, DESKTOP_URL: upstream, JWT_PUBLIC_KEY: publicKey, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await deps.waitForPort(healthPort, 10_000, child, 'the gateway');
  return { child, port, healthPort, exited, output: () => output };
}

type Result = { status: number; connection?: string } | { error: string };
function request(port: number, method: string, path: string, agent?: http.Agent): Promise<Result> {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    req.once('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(method === 'POST' ? '{"email":"a@b.co","password":"x"}' : undefined);
  });
}
const ready = async (healthPort: number) => (await request(healthPort, 'GET', '/health/ready')) as { status: number };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('shutdown on SIGTERM', () => {
  it('drains: 503 readiness at once, serves until the delay, refuses after, finishes in-flight work, exits 0', async () => {
    const upstream = await slowUpstream(1_500);
    const gateway = await startGateway(upstream.url, { SHUTDOWN_DELAY_MS: '700', SHUTDOWN_TIMEOUT_MS: '5000' });
    try {
      expect((await ready(gateway.healthPort)).status).toBe(200);
      const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
      expect(await request(gateway.port, 'GET', '/warm', keepAlive)).toMatchObject({ status: 404 });
      const inFlight = Array.from({ length: 5 }, () => request(gateway.port, 'POST', '/api/auth/user/login'));
      await sleep(200);
      gateway.child.kill('SIGTERM');
      await sleep(100);
      expect((await ready(gateway.healthPort)).status).toBe(503);
      // Within the delay the listener still serves, and tells keep-alive clients to reconnect.
      expect(await request(gateway.port, 'GET', '/during-delay', keepAlive)).toEqual({ status: 404, connection: 'close' });
      await sleep(900);
      expect(await request(gateway.port, 'GET', '/after-delay')).toEqual({ error: 'ECONNREFUSED' });
      expect(await Promise.all(inFlight)).toEqual(Array.from({ length: 5 }, () => expect.objectContaining({ status: 200 })));
      const code = await gateway.exited;
      if (code !== 0) console.log(gateway.output());
      expect(code).toBe(0);
      expect(gateway.output()).toMatch(/"message":"Stopped"/);
    } finally {
      gateway.child.kill('SIGKILL');
      await upstream.close();
    }
  }, 30_000);

  it('cuts what is still running at the deadline and exits 1, saying so', async () => {
    const upstream = await slowUpstream(Infinity);
    const gateway = await startGateway(upstream.url, { SHUTDOWN_DELAY_MS: '100', SHUTDOWN_TIMEOUT_MS: '800', UPSTREAM_TIMEOUT_MS: '60000' });
    try {
      const stuck = request(gateway.port, 'POST', '/api/auth/user/login');
      await sleep(200);
      const signalled = Date.now();
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toBe(1);
      expect(Date.now() - signalled).toBeLessThan(scaled(5_000));
      expect(await stuck).toHaveProperty('error');
      expect(gateway.output()).toMatch(/cutting what had not finished by the deadline: exit 1/);
    } finally {
      gateway.child.kill('SIGKILL');
      await upstream.close();
    }
  }, 30_000);
});
