// When Redis or MongoDB goes away, auth answers 503 quickly instead of hanging, and recovers by
// itself. One stack of its own, whose auth reaches a Redis server and a MongoDB stand-in that this
// file starts, stops and starts again (each test registers its own accounts after the stop: the
// stand-in keeps no data across a restart).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMongoStandin, type MongoStandin } from '@acct/mongo-standin';
import { call } from '@acct/test-harness/http-client';
import { buildAccount, startStack, type TestStack } from '@acct/test-stack/stack';
import { scaled } from '@acct/test-harness/time-scale';
import { stopChild } from '@acct/test-harness/processes';
import { until } from '@acct/test-harness/until';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const deps = require('../../scripts/lib/dependencies.js');

let stack: TestStack;
let redis: ChildProcess;
let port: number;
let dir: string;
let mongoPort: number;
let mongo: MongoStandin;

async function startRedis(): Promise<void> {
  const bin = deps.which('redis-server');
  if (!bin) throw new Error('this test needs the redis-server binary (apt-get install redis-server)');
  redis = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  await deps.waitForPort(port, 10_000, redis, 'redis-server');
}

beforeAll(async () => {
  port = await deps.freePort();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-outage-'));
  await startRedis();
  mongoPort = await deps.freePort();
  mongo = await startMongoStandin({ port: mongoPort });
  stack = await startStack('outage', { auth: { REDIS_URL: `redis://127.0.0.1:${port}`, MONGO_URL: mongo.url } });
});
afterAll(async () => {
  await stack.stop();
  await mongo.close();
  await stopChild(redis, 'SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('Redis outage', () => {
  it('answers 503 within two seconds while Redis is down, and serves again once it is back', async () => {
    const account = buildAccount();
    expect((await call(stack.url, 'POST', '/api/auth/user/register', { body: account })).status).toBe(201);
    const exited = new Promise((r) => redis.once('exit', r));
    redis.kill('SIGKILL');
    await exited;

    const started = Date.now();
    const down = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password }, headers: { 'x-request-id': 'redis-outage-1' } });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ success: false, message: 'Service temporarily unavailable', code: 'service_unavailable' });
    expect(Date.now() - started).toBeLessThan(scaled(2_000));
    // The service's own record of the fault carries the request's id and its (unredacted) code.
    expect(await until(() => stack.logs.service.find((r) => r.request_id === 'redis-outage-1'), 2_000, 'the fault record')).toMatchObject({ level: 'error', code: 'service_unavailable', message: 'Dependency unavailable' });

    await startRedis();
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } })).status;
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
  });
});

describe('MongoDB outage', () => {
  it('answers 503, not a hang, while MongoDB is down, and serves again once it is back', async () => {
    const account = buildAccount();
    expect((await call(stack.url, 'POST', '/api/auth/user/register', { body: account })).status).toBe(201);
    await mongo.close();

    const started = Date.now();
    const down = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } });
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ success: false, code: 'service_unavailable' });
    // Auth's own 503 (the driver gives up after its 2 s server selection), not the gateway's 504
    // after UPSTREAM_TIMEOUT_MS (10 s): the bound proves no hang and leaves a loaded machine room.
    expect(Date.now() - started).toBeLessThan(scaled(8_000));

    mongo = await startMongoStandin({ port: mongoPort });
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline) {
      // The stand-in lost its data with the restart: a new registration shows the store is back.
      status = (await call(stack.url, 'POST', '/api/auth/user/register', { body: buildAccount() })).status;
      if (status === 201) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(201);
  }, 40_000);
});
