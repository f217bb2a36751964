#!/usr/bin/env node
// What a request costs each stack process at a fixed, steady rate, against what it costs under
// saturation: `node bench/rate-cost.mjs [rates…]` (default 100 400 2000) starts the stack as the bench
// does, then for each rate sends a 404 and an authenticated /me at that rate for BENCH_DURATION_S
// (10 s) and prints the CPU microseconds per request of every process, from the scheduler's exact
// clock (cpuSecondsExact), and its main thread's wake-ups per request. A low rate pays every wake-up
// of every process on the path cold; the number of processes and round trips a request crosses is
// then what its cost is made of. RATE_COST_CHECKOUT=<a built checkout> measures that one's stack.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { DURATION_S } from './lib/load.mjs';
import { cpuSecondsExact } from './lib/processes.mjs';
import { say } from './lib/context.mjs';
import { accessTokens, seed, startStack } from './lib/stack.mjs';

const rates = process.argv.slice(2).map(Number).filter((n) => n > 0);
// RATE_COST_CHECKOUT=<a built checkout>: that checkout's stack instead of this one's (a before, or an experiment).
const stack = await startStack(process.env.RATE_COST_CHECKOUT ? path.resolve(process.env.RATE_COST_CHECKOUT) : undefined, 'rate-cost');
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const get = (path, headers) =>
  new Promise((resolve, reject) => {
    const req = http.request(`${stack.gatewayUrl}${path}`, { agent, headers }, (res) => res.resume().on('end', resolve));
    req.on('error', reject).end();
  });
const pids = Object.fromEntries(Object.entries(stack.services).filter(([, s]) => s.pid).map(([name, s]) => [name, s.pid]));
const wakes = (pid) => Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[2]);
const read = () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, { cpu: cpuSecondsExact(pid), wakes: wakes(pid) }]));

/** `rate` requests a second for DURATION_S, each sent when due. */
async function steady(rate, request) {
  const total = rate * DURATION_S;
  const start = Date.now();
  const pending = [];
  let sent = 0;
  await new Promise((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((Date.now() - start) / 1000) * rate));
      while (sent < due) pending.push(request(sent++));
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 2);
  });
  await Promise.all(pending);
  return total;
}

try {
  const tokens = await accessTokens(stack.gatewayUrl, await seed(stack.gatewayUrl));
  const scenarios = {
    '404': () => get('/no/such/route', {}),
    '/me': (i) => get('/api/auth/user/me', { authorization: `Bearer ${tokens[i % tokens.length]}` }),
  };
  const rows = [];
  for (const rate of rates.length ? rates : [100, 400, 2000]) {
    for (const [name, request] of Object.entries(scenarios)) {
      await steady(Math.min(rate, 200), request); // warm-up
      const before = read();
      const total = await steady(rate, request);
      const after = read();
      const row = { scenario: name, rate };
      for (const service of ['gateway', 'auth']) {
        if (!after[service]) continue;
        row[`${service} µs`] = Math.round(((after[service].cpu - before[service].cpu) * 1e6) / total);
        row[`${service} wakes`] = Math.round(((after[service].wakes - before[service].wakes) / total) * 10) / 10;
      }
      say(JSON.stringify(row));
      rows.push(row);
    }
  }
  console.table(rows);
} finally {
  agent.destroy();
  await stack.stop();
}
