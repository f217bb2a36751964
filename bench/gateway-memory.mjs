#!/usr/bin/env node
// The gateway's memory: how many modules and how much RSS importing it costs, its RSS once started,
// and its peak RSS under the 404 load of `npm run bench`. Runs the built gateway (npm run build
// first) on its own, with no upstream (a 404 never reaches one). Prints one JSON line and, with
// --record, writes it into bench/results/gateway-memory-<date>-<host>.json.
//   node bench/gateway-memory.mjs [--record] [--label before]
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { measure, DURATION_S } from './lib/load.mjs';

const require = createRequire(import.meta.url);
const deps = require('../scripts/lib/dependencies.js');
const { ensureDevKeys } = require('../scripts/lib/dev-keys.js');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const label = args.includes('--label') ? args[args.indexOf('--label') + 1] : undefined;
const say = (line) => process.stderr.write(`[gateway-memory] ${line}\n`);

const rssMb = (pid) => Math.round((Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024) * 10) / 10;

// 1. What importing the gateway's start code loads, in a fresh process.
const entry = path.join(root, 'services/gateway/dist/server.js');
const probe = `require(${JSON.stringify(entry)}); global.gc?.(); console.log(JSON.stringify({ modules: Object.keys(require.cache).length, rssMb: Math.round(process.memoryUsage().rss / 1048576 * 10) / 10 }))`;
const atImport = JSON.parse(execFileSync(process.execPath, ['--max-old-space-size=256', '-e', probe], { cwd: root, encoding: 'utf8' }));
say(`import: ${atImport.modules} modules, ${atImport.rssMb} MB RSS`);

// 2. The gateway itself: RSS once ready, and the peak under the 404 load.
const keys = ensureDevKeys(path.join(root, '.stack', 'keys'));
const [port, healthPort] = [await deps.freePort(), await deps.freePort()];
const gateway = spawn(process.execPath, ['--max-old-space-size=256', path.join(root, 'services/gateway/dist/start.js')], {
  cwd: root,
  env: { ...process.env, PORT: String(port), HEALTH_PORT: String(healthPort), JWT_PUBLIC_KEY: keys.publicKey, LOG_LEVEL: 'info', AUTH_URL: 'http://127.0.0.1:9', DESKTOP_URL: 'http://127.0.0.1:9' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
try {
  await deps.waitForPort(port, 10_000, gateway, 'the gateway');
  await new Promise((r) => setTimeout(r, 500));
  const atStart = rssMb(gateway.pid);
  say(`started: ${atStart} MB RSS; 404 load for ${DURATION_S} s…`);
  let peak = atStart;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(gateway.pid))), 200);
  const load = await measure({ url: `http://127.0.0.1:${port}/no/such/route`, connections: 64 }, { expectStatus: 404 });
  clearInterval(sampler);
  const result = {
    date: new Date().toISOString(),
    host: os.hostname(),
    node: process.version,
    label,
    commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(),
    importModules: atImport.modules,
    importRssMb: atImport.rssMb,
    startRssMb: atStart,
    peakRssUnder404Mb: peak,
    notFoundPerSecond: load.requestsPerSecond,
    failed: load.failed,
  };
  console.log(JSON.stringify(result));
  if (args.includes('--record')) {
    const file = path.join(root, 'bench', 'results', `gateway-memory-${result.date.slice(0, 10)}-${result.host}${label ? `-${label}` : ''}.json`);
    fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    say(`recorded in ${path.relative(root, file)}`);
  }
  if (load.failed) process.exitCode = 1;
} finally {
  gateway.kill('SIGTERM');
}
