#!/usr/bin/env node
// What tracing costs the gateway alone on a proxied route (user refresh), apart from auth and its
// stores: two gateways of this checkout, one untraced and one traced (spans to bench/otlp-sink.mjs,
// the sampler as the environment gives it: 1 % by default), in front of one stub upstream that
// answers every refresh at once with a new token. Measured in alternating rounds, both gateways in
// each round back to back; answers throughput and the gateway's CPU per request of each side, and
// the cost round by round with its 95 % interval (bench/lib/paired.mjs). Needs the build
// (`npm run build`) and Redis (REDIS_URL, default the local one).
//
//   node bench/gateway-tracing.mjs
//   GW_ROUNDS=12 BENCH_DURATION_S=5 BENCH_WARMUP_S=1 OTEL_TRACES_SAMPLER_ARG=0 node bench/gateway-tracing.mjs
//   GW_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' …   (node flags for both gateways)
//   GW_WARMUP_S=30 …   (load each gateway that long before the first round)
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { measure } from './lib/load.mjs';
import { cpuSeconds, spawnLines } from './lib/processes.mjs';
import { pairedCost } from './lib/paired.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { ensureDevKeys } = require('../scripts/lib/dev-keys.js');
const deps = require('../scripts/lib/dependencies.js');
const ROUNDS = Number(process.env.GW_ROUNDS ?? 12);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const say = (line) => process.stderr.write(`[gateway-tracing] ${line}\n`);

if (process.argv[2] === '--stub') {
  // The upstream: every request answered 200 with a rotated token, as auth answers a refresh.
  const body = JSON.stringify({ success: true, message: 'Token refreshed', data: { token: 'x'.repeat(200) } });
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-set-refresh-token': crypto.randomBytes(32).toString('base64url'),
      'x-refresh-token-max-age': '2592000',
    });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else {
  await main();
}

async function startGateway(name, upstream, extraEnv) {
  const keys = ensureDevKeys(path.join(root, 'bench', '.tmp', 'gateway-tracing-keys'));
  const port = await deps.freePort();
  const healthPort = await deps.freePort();
  const logPath = path.join(root, 'bench', '.tmp', `gateway-tracing-${name}.log`);
  const logFd = fs.openSync(logPath, 'w');
  const nodeArgs = (process.env.GW_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'services', 'gateway', 'dist', 'start.js')], {
    cwd: root,
    stdio: ['ignore', logFd, logFd],
    env: {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      SHUTDOWN_DELAY_MS: '0',
      PORT: String(port),
      HEALTH_PORT: String(healthPort),
      AUTH_URL: upstream,
      DESKTOP_URL: upstream,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REVOCATION_STREAM: `bench:gateway-tracing:${name}:revocations`,
      JWT_PUBLIC_KEY: keys.publicKey,
      ...extraEnv,
    },
  });
  fs.closeSync(logFd);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the ${name} gateway exited: see ${logPath}`);
    const ready = await fetch(`http://127.0.0.1:${healthPort}/health/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`the ${name} gateway was not ready in 30 s: see ${logPath}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { name, child, url: `http://127.0.0.1:${port}` };
}

async function main() {
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) throw new Error('unset OTEL_EXPORTER_OTLP_*: the traced gateway is given its own collector');
  say(`node ${process.version}, ${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? 'cpu unknown'}; sampler ${process.env.OTEL_TRACES_SAMPLER ?? 'default'} ${process.env.OTEL_TRACES_SAMPLER_ARG ?? ''}`);
  const stub = spawnLines(process.execPath, [fileURLToPath(import.meta.url), '--stub']);
  const sink = spawnLines(process.execPath, [path.join(root, 'bench', 'otlp-sink.mjs'), '0']);
  const children = [stub.child, sink.child];
  try {
    const upstream = `http://127.0.0.1:${await stub.firstLine}`;
    const sinkPort = Number(await sink.firstLine);
    const sides = {
      off: await startGateway('off', upstream, {}),
      on: await startGateway('on', upstream, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}` }),
    };
    children.push(sides.off.child, sides.on.child);
    const cookie = `userRefreshToken=${crypto.randomBytes(32).toString('base64url')}`;
    const work = (side) =>
      measure(
        { url: `${side.url}/api/auth/user/refresh`, method: 'POST', headers: { cookie }, connections: CONNECTIONS },
        { expectStatus: 200, cpu: () => ({ gateway: cpuSeconds(side.child.pid), gatewayMainThread: cpuSeconds(side.child.pid, { mainThread: true }), gatewayKernel: cpuSeconds(side.child.pid, { kernel: true }), upstream: cpuSeconds(stub.child.pid) }) },
      );
    // Both gateways loaded for GW_WARMUP_S first (default 0), so that rounds measure warm code. Each
    // side idles while the other is loaded: before keepNextTickFast (libs/shared/src/next-tick.ts),
    // an idle collection could leave one side's nextTick slow for the rest of the run, which read as
    // a cost growing with age (bench/RESULTS.md, "The nextTick cliff").
    const warmupS = Number(process.env.GW_WARMUP_S ?? 0);
    if (warmupS > 0) {
      say(`warming both gateways up for ${warmupS} s each…`);
      for (const side of [sides.off, sides.on]) await autocannon({ url: `${side.url}/api/auth/user/refresh`, method: 'POST', headers: { cookie }, connections: CONNECTIONS, duration: warmupS });
    }
    const runs = { off: [], on: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of round % 2 === 0 ? ['off', 'on'] : ['on', 'off']) {
        const result = await work(sides[mode]);
        if (result.failed) throw new Error(`round ${round + 1}, ${mode}: ${JSON.stringify(result)}`);
        runs[mode].push(result);
      }
      say(`round ${round + 1}/${ROUNDS}: off ${runs.off.at(-1).requestsPerSecond}/s ${runs.off.at(-1).cpuMicrosPerRequest.gateway} µs, on ${runs.on.at(-1).requestsPerSecond}/s ${runs.on.at(-1).cpuMicrosPerRequest.gateway} µs`);
    }
    const mean = (xs) => Math.round((xs.reduce((s, x) => s + x, 0) / xs.length) * 10) / 10;
    const side = (list) => ({ requestsPerSecond: mean(list.map((r) => r.requestsPerSecond)), gatewayCpuMicrosPerRequest: mean(list.map((r) => r.cpuMicrosPerRequest.gateway)), mainThreadCpuMicrosPerRequest: mean(list.map((r) => r.cpuMicrosPerRequest.gatewayMainThread)), kernelCpuMicrosPerRequest: mean(list.map((r) => r.cpuMicrosPerRequest.gatewayKernel)) });
    const report = {
      node: process.version,
      sampler: `${process.env.OTEL_TRACES_SAMPLER ?? 'default'} ${process.env.OTEL_TRACES_SAMPLER_ARG ?? ''}`.trim(),
      rounds: ROUNDS,
      warmupSeconds: Number(process.env.GW_WARMUP_S ?? 0),
      off: side(runs.off),
      on: side(runs.on),
      throughputCostPercent: pairedCost(runs.off.map((r) => r.requestsPerSecond), runs.on.map((r) => r.requestsPerSecond)),
      gatewayCpuCostPercent: pairedCost(runs.off.map((r) => r.cpuMicrosPerRequest.gateway), runs.on.map((r) => r.cpuMicrosPerRequest.gateway), { more: true }),
      // The main thread alone: the rest is libuv's pool, the span export thread and V8's helper threads (garbage collection, compilation).
      mainThreadCpuCostPercent: pairedCost(runs.off.map((r) => r.cpuMicrosPerRequest.gatewayMainThread), runs.on.map((r) => r.cpuMicrosPerRequest.gatewayMainThread), { more: true }),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    // Each child's exit awaited: a gateway run with GW_NODE_ARGS=--cpu-prof writes its profile then.
    await Promise.all(children.map((child) => (child.exitCode !== null ? undefined : new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM')))));
  }
}
