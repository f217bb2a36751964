// Load generation with autocannon: a short warm-up, then a measured run; answers the numbers the
// report needs. A run with errors or unexpected statuses is marked failed, never reported as fast.
import autocannon from 'autocannon';

export const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
export const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 2);
// A pause between the warm-up and the measured run: requests the warm-up left in flight (a login's
// bcrypt work goes on after autocannon hangs up) must not eat into the measured window.
export const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 1000);

function run(options) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
}

/**
 * A meeting point for `parties` tasks running side by side, used phase after phase: `wait()`
 * resolves once every party still in has called it, with how long this party waited (ms). A party
 * that ends (or fails) calls `leave()`, so the others never wait for it.
 */
export function meetingPoint(parties) {
  let arrived = [];
  const release = () => {
    if (arrived.length === 0 || arrived.length < parties) return;
    const now = performance.now();
    for (const { resolve, since } of arrived) resolve(now - since);
    arrived = [];
  };
  return {
    wait: () =>
      new Promise((resolve) => {
        arrived.push({ resolve, since: performance.now() });
        release();
      }),
    leave: () => {
      parties -= 1;
      release();
    },
  };
}

/** Microseconds of CPU each process spent per request between two readings of CPU seconds; undefined without readings. */
export function cpuPerRequest(before, after, requests) {
  if (!before || !after || !(requests > 0)) return undefined;
  return Object.fromEntries(
    Object.keys(before)
      .filter((name) => before[name] !== null && after[name] !== null)
      .map((name) => [name, Math.round(((after[name] - before[name]) * 1e6) / requests)]),
  );
}

/**
 * @param {object} options autocannon options (url, method, body, headers, requests, connections…)
 * @param {{ expectStatus: number, prepare?: () => Promise<object>, cpu?: () => Record<string, number | null>, align?: (phase: 'warm-up' | 'measured') => Promise<unknown> }} expect
 *   the status every answer should have, an optional builder of per-run options, an optional
 *   reading of the CPU seconds each process under test has used (answered per request, µs), and an
 *   optional meeting point awaited after `prepare`, just before the warm-up and the measured run
 *   (meetingPoint: runs made side by side then load their stacks over the same seconds)
 */
export async function measure(options, expect) {
  // `prepare` builds fresh per-run options (e.g. new sessions: a stopped run drops its in-flight state).
  const build = async () => (expect.prepare ? { ...options, ...(await expect.prepare()) } : options);
  // A run of a set number of requests (`amount`: each uses up something prepared) has no warm-up and no time bound.
  const counted = options.amount !== undefined;
  if (WARMUP_S > 0 && !counted) {
    const warmUp = await build();
    await expect.align?.('warm-up');
    await run({ ...warmUp, duration: WARMUP_S });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  }
  const measured = await build();
  await expect.align?.('measured');
  // CPU time of the processes under test, around the measured run only (not the warm-up nor `prepare`).
  const cpuBefore = expect.cpu?.();
  const result = await run(counted ? measured : { ...measured, duration: DURATION_S });
  const cpuAfter = expect.cpu?.();
  const unexpected = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => Number(code) !== expect.expectStatus)
    .reduce((n, [, v]) => n + v.count, 0);
  const numbers = {
    requestsPerSecond: Math.round((result.requests.total / result.duration) * 10) / 10,
    total: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    unexpectedStatus: unexpected,
    connections: options.connections,
  };
  const cpu = cpuPerRequest(cpuBefore, cpuAfter, result.requests.total);
  if (cpu) numbers.cpuMicrosPerRequest = cpu;
  return { ...numbers, failed: numbers.errors > 0 || numbers.unexpectedStatus > 0 || numbers.total === 0 };
}
