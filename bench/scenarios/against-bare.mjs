// The gateway's two cheapest paths against what they cost without it (issue 50, item 3), measured in
// alternating warmed rounds so that the machine's drift falls on both sides alike: a 404 against a
// bare node:http server answering the same 404 and writing the same pino request record
// (bench/bare-404.mjs), and the version check through the gateway against desktop answering it
// straight (which writes no request record) and against the bare server answering the same 200
// with the same record the gateway writes. Each side is BENCH_ROUNDS measured runs (each after its
// own warm-up); the ratios are of the medians, and each round's own ratio is kept beside them with
// their median: the two sides of one round ran seconds apart, so on a host whose speed drifts from
// minute to minute (these VMs, some hours) the rounds' ratios agree where the medians do not.
import { measure } from '../lib/load.mjs';
import { cpuSeconds, startBare } from '../lib/processes.mjs';
import { median } from '../lib/context.mjs';

const ratio = (a, b) => Math.round((a / b) * 1000) / 1000;

export async function againstBare(stack, { connections, rounds, say }) {
  const desktopPort = stack.services?.desktop?.port;
  const version = '/api/desktop/latest-version?platform=linux';
  const bare = await startBare(desktopPort ? { BARE_VERSION_FROM: `http://127.0.0.1:${desktopPort}${version}` } : {});
  // CPU µs per request of each process serving the side, besides its throughput (on 2 cores the load
  // generator's share of the CPU moves the throughput too).
  const pids = { gateway: stack.services?.gateway?.pid, desktop: stack.services?.desktop?.pid, bare: bare.child.pid };
  const cpuOf = (...names) => () => Object.fromEntries(names.filter((n) => pids[n]).map((n) => [n, cpuSeconds(pids[n])]));
  const sides = {
    '404 through the gateway': () => measure({ url: `${stack.gatewayUrl}/no/such/route`, connections }, { expectStatus: 404, cpu: cpuOf('gateway') }),
    '404 bare node:http': () => measure({ url: `${bare.url}/no/such/route`, connections }, { expectStatus: 404, cpu: cpuOf('bare') }),
    ...(desktopPort
      ? {
          'version check through the gateway': () => measure({ url: `${stack.gatewayUrl}${version}`, connections }, { expectStatus: 200, cpu: cpuOf('gateway', 'desktop') }),
          'version check straight to desktop': () => measure({ url: `http://127.0.0.1:${desktopPort}${version}`, connections }, { expectStatus: 200, cpu: cpuOf('desktop') }),
          'version check bare node:http': () => measure({ url: `${bare.url}${version}`, connections }, { expectStatus: 200, cpu: cpuOf('bare') }),
        }
      : {}),
  };
  const runs = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
  const cpu = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
  let failed = false;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [name, run] of Object.entries(sides)) {
        const result = await run();
        failed ||= result.failed;
        runs[name].push(result.requestsPerSecond);
        cpu[name].push(result.cpuMicrosPerRequest);
        say(`  round ${round + 1}: ${name} ${result.requestsPerSecond}/s, CPU µs a request ${JSON.stringify(result.cpuMicrosPerRequest)}`);
      }
    }
  } finally {
    bare.stop();
  }
  const medians = Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, median(list)]));
  const pairs = (a, b) => runs[a].map((value, i) => ratio(value, runs[b][i]));
  const pairedMedian = (a, b) => median(pairs(a, b));
  return {
    requestsPerSecond: medians['404 through the gateway'],
    runs,
    medians,
    cpuMicrosPerRequest: cpu,
    notFoundToBare: ratio(medians['404 through the gateway'], medians['404 bare node:http']),
    notFoundToBareByRound: pairs('404 through the gateway', '404 bare node:http'),
    notFoundToBareRoundsMedian: pairedMedian('404 through the gateway', '404 bare node:http'),
    ...(desktopPort
      ? {
          versionToDesktop: ratio(medians['version check through the gateway'], medians['version check straight to desktop']),
          versionToDesktopByRound: pairs('version check through the gateway', 'version check straight to desktop'),
          versionToDesktopRoundsMedian: pairedMedian('version check through the gateway', 'version check straight to desktop'),
          versionToBare: ratio(medians['version check through the gateway'], medians['version check bare node:http']),
          versionToBareByRound: pairs('version check through the gateway', 'version check bare node:http'),
          versionToBareRoundsMedian: pairedMedian('version check through the gateway', 'version check bare node:http'),
        }
      : {}),
    failed,
  };
}
