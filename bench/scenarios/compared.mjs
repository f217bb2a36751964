// The scenarios measured on this stack and, with BENCH_BEFORE=<a built checkout of an earlier
// commit>, on that checkout's stack beside it, in turns (BENCH_ROUNDS each), so that the machine's
// drift falls on both alike. Each side's gateway CPU µs a request is kept beside its throughput: on
// 2 cores the load generator's share moves the throughput, not the gateway's own cost.
import path from 'node:path';
import { measure } from '../lib/load.mjs';
import { CONNECTIONS, ROUNDS, median, ratio, wants } from '../lib/context.mjs';
import { cpuSeconds } from '../lib/processes.mjs';
import { accessTokens, publishRelease, seed, startStack } from '../lib/stack.mjs';

/**
 * The scenarios measured on this stack and, with BENCH_BEFORE, on an earlier checkout's in turns:
 * the routes that take an access token (live sessions' tokens, round robin), and the gateway's 404
 * and proxy paths.
 */
export const COMPARED = {
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

function comparedScenario(stack, tokens, { request, bearer, expectStatus }) {
  let next = 0;
  const withToken = (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` } });
  const gatewayPid = stack.services?.gateway?.pid;
  const cpu = gatewayPid ? () => ({ gateway: cpuSeconds(gatewayPid) }) : undefined;
  return measure({ url: stack.gatewayUrl, connections: CONNECTIONS, requests: [bearer ? { ...request, setupRequest: withToken } : request] }, { expectStatus, cpu });
}

/** Each COMPARED scenario this run wants, after then (with BENCH_BEFORE) before, round after round. */
export async function comparedRuns(stack, accounts, scenario) {
  if (!Object.keys(COMPARED).some(wants)) return;
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
          runs.after.push(await comparedScenario(stack, tokens, spec));
          if (before) runs.before.push(await comparedScenario(before, before.tokens, spec));
        }
        const mean = (list) => (list.length ? Math.round((list.reduce((s, r) => s + r.requestsPerSecond, 0) / list.length) * 10) / 10 : null);
        const all = [...runs.after, ...runs.before];
        return {
          requestsPerSecond: mean(runs.after),
          beforeRequestsPerSecond: mean(runs.before),
          ratioToBefore: ratio(mean(runs.after), mean(runs.before)),
          runs: Object.fromEntries(Object.entries(runs).map(([k, list]) => [k, list.map((r) => r.requestsPerSecond)])),
          // The gateway's CPU µs a request, each round's and the median (absent for a stack started elsewhere).
          gatewayCpuMicros: Object.fromEntries(Object.entries(runs).map(([k, list]) => [k, list.map((r) => r.cpuMicrosPerRequest?.gateway ?? null)])),
          gatewayCpuMicrosMedian: Object.fromEntries(Object.entries(runs).map(([k, list]) => [k, list.length && list[0].cpuMicrosPerRequest ? median(list.map((r) => r.cpuMicrosPerRequest.gateway)) : null])),
          p99Ms: runs.after.at(-1).p99Ms,
          failed: all.some((r) => r.failed),
        };
      });
    }
  } finally {
    await before?.stop();
  }
}
