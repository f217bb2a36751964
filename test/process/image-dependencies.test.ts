// What a service's image installs (the Dockerfile's runtime stage, without Docker): `npm ci --omit=dev
// --workspace` from the manifests and the lockfile, then scripts/prune-deps.mjs. Each service keeps
// what its compiled code loads and nothing of the other services' drivers; the gateway starts from
// its pruned tree and answers its health check.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testUrls } from '@acct/test-harness/isolation';
import { testKeys } from '@acct/test-harness/keys';
import { until } from '@acct/test-harness/until';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const deps = require('../../scripts/lib/dependencies.js');

const root = path.resolve(__dirname, '..', '..');
const workspaces: string[] = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).workspaces;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** A folder laid out as the runtime stage is before its COPY --from=build: manifests, lockfile, pruned node_modules, then the compiled code. */
function imageOf(service: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `acct-image-${service}-`));
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(root, file), path.join(dir, file));
  for (const workspace of workspaces) {
    fs.mkdirSync(path.join(dir, workspace), { recursive: true });
    fs.copyFileSync(path.join(root, workspace, 'package.json'), path.join(dir, workspace, 'package.json'));
  }
  // From the cache the checkout's own `npm ci` filled: no network.
  execFileSync(npm, ['ci', '--omit=dev', '--workspace', `services/${service}`, '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'pipe' });
  execFileSync(process.execPath, [path.join(root, 'scripts', 'prune-deps.mjs'), `services/${service}`], { cwd: dir, stdio: 'pipe' });
  for (const built of ['libs/shared', `services/${service}`]) {
    fs.cpSync(path.join(root, built, 'dist'), path.join(dir, built, 'dist'), { recursive: true });
  }
  // The Dockerfile copies libs/shared whole: its language files come along.
  fs.cpSync(path.join(root, 'libs/shared/locales'), path.join(dir, 'libs/shared/locales'), { recursive: true });
  return dir;
}

const installed = (dir: string, name: string) => fs.existsSync(path.join(dir, 'node_modules', name));
const images: string[] = [];
afterAll(() => {
  for (const dir of images) fs.rmSync(dir, { recursive: true, force: true });
});

describe('service images', () => {
  it.each(['auth', 'desktop', 'notifier'])('%s: its pruned tree loads every module its code requires, tracing included', (service) => {
    const dir = imageOf(service);
    images.push(dir);
    // With tracing on, instrument.js loads the SDK and the instrumentations; server.js the whole
    // service (drivers included), without connecting to anything; export-worker.js what the thread
    // that sends spans loads (started at the first batch).
    execFileSync(process.execPath, ['-e', `require('./services/${service}/dist/instrument.js'); require('./services/${service}/dist/server.js'); require('./libs/shared/dist/tracing/export-worker.js'); new (require('./libs/shared/dist/languages').Languages)(); process.exit(0)`], {
      cwd: dir,
      stdio: 'pipe',
      env: { PATH: process.env.PATH, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
    });
  });

  it('gateway: carries no other service\'s driver, and starts from its pruned tree', async () => {
    const dir = imageOf('gateway');
    images.push(dir);
    expect(['mongoose', 'mongodb', 'amqplib', 'express', 'bcrypt', 'firebase-admin', 'nodemailer'].filter((name) => installed(dir, name))).toEqual([]);
    // It traces by hand (and starts with tracing on, below): none of the library instrumentations, nor the module hooks they need.
    const otel = fs.readdirSync(path.join(dir, 'node_modules', '@opentelemetry'));
    expect(otel.filter((name) => name.startsWith('instrumentation'))).toEqual([]);
    expect(['require-in-the-middle', 'import-in-the-middle'].filter((name) => installed(dir, name))).toEqual([]);
    expect(installed(dir, 'ioredis')).toBe(true);
    // What the thread that sends its spans loads (started at the first batch, so not by the start below).
    execFileSync(process.execPath, ['-e', `require('./libs/shared/dist/tracing/export-worker.js'); process.exit(0)`], { cwd: dir, stdio: 'pipe', env: { PATH: process.env.PATH } });
    const [port, healthPort] = [await deps.freePort(), await deps.freePort()];
    const child = spawn(process.execPath, ['services/gateway/dist/start.js'], {
      cwd: dir,
      stdio: 'ignore',
      env: { PATH: process.env.PATH, NODE_ENV: 'development', SHUTDOWN_DELAY_MS: '0', PORT: String(port), HEALTH_PORT: String(healthPort), HOST: '127.0.0.1', JWT_PUBLIC_KEY: testKeys().publicKey, REDIS_URL: testUrls().redis, REVOCATION_STREAM: `image-test:${process.pid}:revocations`, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
    });
    try {
      await until(async () => (await fetch(`http://127.0.0.1:${healthPort}/health/live`).catch(() => undefined))?.ok, 20_000, 'the gateway answers /health/live');
      expect((await fetch(`http://127.0.0.1:${port}/no/such/route`)).status).toBe(404);
    } finally {
      // A gateway that failed to start has exited already: no exit is left to wait for.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });
});
