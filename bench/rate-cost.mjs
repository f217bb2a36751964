#!/usr/bin/env node
// What a request costs each stack process at a fixed, steady rate, against what it costs under
// saturation: `node bench/rate-cost.mjs [rates…]` (default 100 400 2000) starts the stack as the bench
// does, then for each rate sends a 404, an authenticated /me and a rotating refresh at that rate
// (bench/lib/paced.mjs: a warm-up, then BENCH_DURATION_S, 10 s) and prints the CPU microseconds per
// request of every process, from the scheduler's exact clock (cpuSecondsExact), and its main
// thread's wake-ups per request. A low rate pays every wake-up of every process on the path cold;
// the number of processes and round trips a request crosses is then what its cost is made of.
// RATE_COST_CHECKOUT=<a built checkout> measures that one's stack.
import path from 'node:path';
import { measurePaced } from './lib/paced.mjs';
import { exactCpuOf, mainThreadWakes } from './lib/processes.mjs';
import { say } from './lib/context.mjs';
import { accessTokens, seed, startStack } from './lib/stack.mjs';
import { steadyRefreshScenario } from './scenarios/refresh.mjs';

const rates = process.argv.slice(2).map(Number).filter((n) => n > 0);
// RATE_COST_CHECKOUT=<a built checkout>: that checkout's stack instead of this one's (a before, or an experiment).
const stack = await startStack(process.env.RATE_COST_CHECKOUT ? path.resolve(process.env.RATE_COST_CHECKOUT) : undefined, 'rate-cost');
const pids = Object.fromEntries(['gateway', 'auth'].filter((name) => stack.services[name]?.pid).map((name) => [name, stack.services[name].pid]));

const exactCpu = exactCpuOf(pids);
const wakesNow = () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, mainThreadWakes(pid)]));
/** Each process's main-thread wake-ups a request since `before`. */
const wakesPerRequest = (before, total) => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, Math.round(((mainThreadWakes(pid) - before[name]) / total) * 10) / 10]));

/** One paced run (bench/lib/paced.mjs, after its warm-up) with each process's exact CPU and main-thread wake-ups a request. */
async function atRate(rate, request) {
  let i = 0;
  let before;
  // `prepare` is called before the warm-up and again just before the measured run: the second reading counts.
  const result = await measurePaced({ url: stack.gatewayUrl, rate, connections: 16, cpu: exactCpu, prepare: async () => void (before = wakesNow()), next: () => request(i++) }, request.expectStatus);
  return { cpu: result.cpuMicrosPerRequest, wakes: wakesPerRequest(before, result.total), failed: result.failed };
}

/** Refresh at `rate`, rotating as the bench does (scenarios/refresh.mjs), with the same readings. */
async function refreshAtRate(rate, accounts) {
  let before;
  const result = await steadyRefreshScenario(stack.gatewayUrl, accounts, rate, exactCpu, async () => void (before = wakesNow()));
  return { cpu: result.cpuMicrosPerRequest, wakes: wakesPerRequest(before, result.total), failed: result.failed };
}

try {
  const accounts = await seed(stack.gatewayUrl);
  const tokens = await accessTokens(stack.gatewayUrl, accounts);
  const notFound = Object.assign(() => ({ method: 'GET', path: '/no/such/route' }), { expectStatus: 404 });
  const me = Object.assign((i) => ({ method: 'GET', path: '/api/auth/user/me', headers: { authorization: `Bearer ${tokens[i % tokens.length]}` } }), { expectStatus: 200 });
  const scenarios = { '404': (rate) => atRate(rate, notFound), '/me': (rate) => atRate(rate, me), refresh: (rate) => refreshAtRate(rate, accounts) };
  const rows = [];
  for (const rate of rates.length ? rates : [100, 400, 2000]) {
    for (const [name, run] of Object.entries(scenarios)) {
      const { cpu, wakes: woken, failed } = await run(rate);
      const row = { scenario: name, rate, ...(failed ? { failed } : {}) };
      for (const service of Object.keys(pids)) {
        row[`${service} µs`] = cpu?.[service];
        row[`${service} wakes`] = woken[service];
      }
      say(JSON.stringify(row));
      rows.push(row);
    }
  }
  console.table(rows);
} finally {
  await stack.stop();
}
