// BENCH_TRACING=compare|control: what tracing costs at its production defaults, two stacks side by side.
import path from 'node:path';
import { measure, meetingPoint } from '../lib/load.mjs';
import { pairedCost } from '../lib/paired.mjs';
import { spawnLines } from '../lib/processes.mjs';
import { CONNECTIONS, ratio, root, wants } from '../lib/context.mjs';
import { seed, stackCpu, startStack } from '../lib/stack.mjs';
import { loginScenario } from './login.mjs';
import { authRefreshScenario, refreshScenario } from './refresh.mjs';

/**
 * BENCH_TRACING=compare: what tracing costs at its default settings, in this one run. A second
 * stack of this checkout runs beside the first with OTEL_EXPORTER_OTLP_ENDPOINT set (spans to
 * bench/otlp-sink.mjs; the sampler and everything else at their defaults, as production gets them),
 * and each scenario loads both stacks at once, each from its own client, round after round: the two
 * halves of a round share the machine's moment (their warm-ups and measured runs start together,
 * whatever each side's preparation took). (Measured one after the other, a 2-core VM's
 * refresh rounds read from -32 % to +22 % and 16 of them gave an interval of ±7.7 points; side by
 * side they read from -9 % to +9 % and 16 gave ±2.3: bench/RESULTS.md, "Side by side".) Answers
 * each side's mean throughput and CPU per request, and the cost round by round with its 95 %
 * interval. BENCH_TRACING=control runs the same with the second stack untraced: the difference two
 * identical stacks show, against which the cost is read.
 */
const TRACING_SCENARIOS = {
  '404': (s, align) => measure({ url: `${s.gatewayUrl}/no/such/route`, connections: CONNECTIONS }, { expectStatus: 404, cpu: stackCpu(s), align }),
  refresh: (s, align) => refreshScenario(s.gatewayUrl, s.accounts, stackCpu(s), align),
  'refresh at auth': (s, align) => authRefreshScenario(s, stackCpu(s), align),
  login: (s, align) => loginScenario(s.gatewayUrl, s.accounts, stackCpu(s), align),
};

// Twelve rounds by default: each takes one scenario's time for both sides, so twelve take what six
// in turns took.
const TRACING_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);

export async function tracingCost(stack, accounts, scenario, control) {
  if (!Object.keys(TRACING_SCENARIOS).some((name) => wants(`tracing: ${name}`))) return;
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) throw new Error('BENCH_TRACING=compare starts its own traced stack: unset OTEL_EXPORTER_OTLP_* first');
  const sink = spawnLines(process.execPath, [path.join(root, 'bench', 'otlp-sink.mjs'), '0']);
  const sinkPort = Number(await sink.firstLine);
  let traced;
  try {
    // BENCH_TRACING=control: the second stack untraced too, to show what two stacks differ by alone;
    // with BENCH_CONTROL_NODE_ARGS, what they differ by when the second's services run with those
    // node flags (a heap setting, say); with BENCH_CONTROL_CHECKOUT, when the second is another
    // built checkout (an earlier commit): a before and after measured side by side, paired.
    const controlArgs = process.env.BENCH_CONTROL_NODE_ARGS;
    const controlCheckout = process.env.BENCH_CONTROL_CHECKOUT ? path.resolve(process.env.BENCH_CONTROL_CHECKOUT) : root;
    traced = control
      ? await startStack(controlCheckout, 'traced', controlArgs ? { STACK_NODE_ARGS: controlArgs } : {})
      : await startStack(root, 'traced', { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}` });
    // The sink's CPU is counted on the traced side as `collector`: on this machine it shares the
    // cores with the stack, where in production a collector runs elsewhere.
    const sides = { off: { ...stack, accounts }, on: { ...traced, traced: !control, services: { ...traced.services, collector: { pid: sink.child.pid } }, accounts: await seed(traced.gatewayUrl) } };
    for (const [name, work] of Object.entries(TRACING_SCENARIOS)) {
      await scenario(`tracing: ${name}`, async () => {
        const runs = { off: [], on: [] };
        const waits = [];
        for (let round = 0; round < TRACING_ROUNDS; round++) {
          // Each side's warm-up and measured run start together, whatever its `prepare` took (refresh's
          // logs in 16 sessions, bcrypt each); the wait is how far apart the windows would have been.
          const meet = meetingPoint(2);
          const roundWaits = [];
          const load = (s) => {
            const align = async (phase) => {
              const waited = await meet.wait();
              if (phase === 'measured') roundWaits.push(waited);
            };
            return work(s, align).finally(() => meet.leave());
          };
          // Both sides finish before a failure is thrown: the stacks are stopped only once neither is under load.
          const [off, on] = await Promise.allSettled([load(sides.off), load(sides.on)]);
          if (off.status === 'rejected') throw off.reason;
          if (on.status === 'rejected') throw on.reason;
          runs.off.push(off.value);
          runs.on.push(on.value);
          waits.push(Math.max(0, ...roundWaits));
        }
        const mean = (values) => (values.length ? Math.round((values.reduce((s, v) => s + v, 0) / values.length) * 10) / 10 : null);
        const side = (list) => ({
          requestsPerSecond: mean(list.map((r) => r.requestsPerSecond)),
          runs: list.map((r) => r.requestsPerSecond),
          cpuMicrosPerRequest: Object.fromEntries(['gateway', 'auth', 'collector'].map((svc) => [svc, mean(list.map((r) => r.cpuMicrosPerRequest?.[svc]).filter((v) => v !== undefined))])),
        });
        const off = side(runs.off);
        const on = side(runs.on);
        const cost = (a, b) => (a && b ? Math.round((1 - b / a) * 1000) / 10 : null);
        const cpuCost = (svc) => (off.cpuMicrosPerRequest[svc] && on.cpuMicrosPerRequest[svc] ? Math.round((on.cpuMicrosPerRequest[svc] / off.cpuMicrosPerRequest[svc] - 1) * 1000) / 10 : null);
        const cpuOf = (list) => list.map((r) => (r.cpuMicrosPerRequest?.gateway ?? 0) + (r.cpuMicrosPerRequest?.auth ?? 0));
        return {
          requestsPerSecond: on.requestsPerSecond,
          off,
          on,
          // The same cost taken round by round (each round measured both sides at once), with its
          // 95 % interval: what this run can tell apart from no cost at all.
          pairedThroughputCostPercent: pairedCost(runs.off.map((r) => r.requestsPerSecond), runs.on.map((r) => r.requestsPerSecond)),
          pairedCpuCostPercent: pairedCost(cpuOf(runs.off), cpuOf(runs.on), { more: true }),
          // Percent of throughput lost, and percent more CPU per request, with tracing on.
          throughputCostPercent: cost(off.requestsPerSecond, on.requestsPerSecond),
          cpuCostPercent: { gateway: cpuCost('gateway'), auth: cpuCost('auth') },
          ratio: ratio(on.requestsPerSecond, off.requestsPerSecond),
          // How long the earlier side waited for the other before a measured run (ms, mean and most):
          // the offset of the two windows had they not been started together.
          windowsAlignedMs: { mean: Math.round(mean(waits) ?? 0), most: Math.round(Math.max(0, ...waits)) },
          failed: [...runs.off, ...runs.on].some((r) => r.failed),
        };
      });
    }
  } finally {
    await traced?.stop();
    sink.child.kill('SIGTERM');
  }
}
