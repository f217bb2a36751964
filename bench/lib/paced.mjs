// A steady, open-loop load: one request every 1/rate s, each timed from the moment it was due
// rather than from when it went out, so a stall delays the clock of every request it held up (no
// coordinated omission). autocannon's overallRate is not this: each connection sends its share
// of a second as fast as answers come, then waits for the next second, so "1,000/s" is a burst
// at full speed followed by silence.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { DURATION_S, WARMUP_S, SETTLE_MS, cpuPerRequest } from './load.mjs';

/**
 * @param {object} options
 * @param {string} options.url base URL
 * @param {number} options.rate requests per second
 * @param {number} options.connections most requests in flight (keep-alive sockets)
 * @param {() => ({ method: string, path: string, headers?: object, body?: string, context?: unknown }) | undefined} options.next
 *   the next request, or undefined when none can be made until an answer comes back
 * @param {(status: number, headers: object, context: unknown) => void} [options.onResponse]
 * @param {() => Promise<void>} [options.prepare] run before the warm-up and before the measured run
 * @param {number} expectStatus the status every answer should have
 */
export async function measurePaced(options, expectStatus) {
  if (WARMUP_S > 0) {
    await options.prepare?.();
    await run(options, WARMUP_S, expectStatus);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  }
  await options.prepare?.();
  // CPU time of the processes under test around the measured run (as measure() does), per request.
  const cpuBefore = options.cpu?.();
  const result = await run(options, DURATION_S, expectStatus);
  const cpuAfter = options.cpu?.();
  const cpu = cpuPerRequest(cpuBefore, cpuAfter, result.total);
  if (cpu) result.cpuMicrosPerRequest = cpu;
  return result;
}

function run({ url, rate, connections, next, onResponse }, durationS, expectStatus) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(url);
  const latencies = [];
  let errors = 0;
  let unexpected = 0;
  let inFlight = 0;
  const interval = 1000 / rate;
  const total = Math.round(rate * durationS);
  const start = performance.now();

  return new Promise((resolve) => {
    let sent = 0;
    let finished = 0;
    const done = () => {
      if (++finished < total) return;
      agent.destroy();
      latencies.sort((a, b) => a - b);
      const pct = (p) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] * 10) / 10 : null);
      const seconds = (performance.now() - start) / 1000;
      resolve({
        requestsPerSecond: Math.round((latencies.length / seconds) * 10) / 10,
        total: latencies.length,
        p50Ms: pct(50),
        p99Ms: pct(99),
        maxMs: latencies.length ? Math.round(latencies[latencies.length - 1] * 10) / 10 : null,
        errors,
        unexpectedStatus: unexpected,
        connections,
        paced: true,
        failed: errors > 0 || unexpected > 0 || latencies.length === 0,
      });
    };
    // Requests that fell due while every connection (or session) was busy: they go out as soon as
    // one is free, still timed from when they were due.
    const backlog = [];
    const release = () => {
      inFlight--;
      if (backlog.length) send(backlog.shift());
    };
    const send = (due) => {
      const request = inFlight < connections ? next() : undefined;
      if (!request) {
        backlog.push(due);
        return;
      }
      inFlight++;
      const req = http.request(
        { agent, host: target.hostname, port: target.port, method: request.method, path: request.path, headers: request.headers },
        (res) => {
          res.resume();
          res.once('end', () => {
            latencies.push(performance.now() - due);
            if (res.statusCode !== expectStatus) unexpected++;
            onResponse?.(res.statusCode, res.headers, request.context);
            release();
            done();
          });
        },
      );
      req.once('error', () => {
        errors++;
        onResponse?.(0, {}, request.context);
        release();
        done();
      });
      req.end(request.body);
    };
    const tick = () => {
      const now = performance.now();
      // Every request due by now goes out, each timed from when it was due.
      while (sent < total && start + sent * interval <= now) send(start + sent++ * interval);
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    };
    tick();
  });
}
