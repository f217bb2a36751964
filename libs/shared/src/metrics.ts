// Prometheus metrics (prom-client), served by each service on its health port at GET /metrics,
// never on a public port. One registry per service, labelled with the service's name, with the
// default process metrics. Labels carry route templates, methods, statuses and outcomes only: never
// an email, an id or a token.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export { Counter, Gauge, Histogram, Registry };

/**
 * How often the event loop's delay is sampled (prom-client's `nodejs_eventloop_lag_*`), in ms. Its
 * default, 10, is a timer that wakes every process 100 times a second whatever it serves: idle, that
 * was most of each service's wake-ups and 5 to 12 ms of CPU a second, which a service answering 100
 * requests a second pays as 50 to 120 µs a request (bench/RESULTS.md, "Hot paths, a second pass").
 * Ten samples a second still catch every stall longer than this interval (the max and p99 a
 * dashboard reads).
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

/** Seconds buckets for request handling, from a cache hit to a slow bcrypt under load. */
export const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface HttpMetrics {
  /** One answered request: its route template (`unmatched` for none), method and status. */
  observe(method: string, route: string, status: number, seconds: number): void;
}

/**
 * Request counts and latency, kept in plain per-series records and turned into Prometheus series only
 * when scraped: prom-client's labelled inc/observe hash and validate the labels on every call, which
 * cost the gateway a tenth of its 404 throughput at 15,000 requests a second.
 */
export function httpMetrics(registry: Registry): HttpMetrics {
  interface Series {
    labels: { method: string; route: string; status: string };
    count: number;
    sum: number;
    /** Per bucket, not cumulative; the last counts what is above every bound. */
    buckets: Float64Array;
  }
  const series = new Map<string, Series>();
  const bounds = LATENCY_BUCKETS;
  const all = () => [...series.values()];
  registry.registerMetric(
    customMetric('http_requests_total', 'HTTP requests answered, by route template, method and status', 'counter', () =>
      all().map((s) => ({ labels: s.labels, value: s.count })),
    ),
  );
  registry.registerMetric(
    customMetric('http_request_duration_seconds', 'Time to answer an HTTP request', 'histogram', () =>
      all().flatMap((s) => {
        let cumulative = 0;
        const values = bounds.map((le, i) => {
          cumulative += s.buckets[i];
          return { labels: { ...s.labels, le }, value: cumulative, metricName: 'http_request_duration_seconds_bucket' };
        });
        return [
          ...values,
          { labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: 'http_request_duration_seconds_bucket' },
          { labels: s.labels, value: s.sum, metricName: 'http_request_duration_seconds_sum' },
          { labels: s.labels, value: s.count, metricName: 'http_request_duration_seconds_count' },
        ];
      }),
    ),
  );
  return {
    observe(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let entry = series.get(key);
      if (!entry) {
        entry = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: new Float64Array(bounds.length + 1) };
        series.set(key, entry);
      }
      entry.count++;
      entry.sum += seconds;
      let i = 0;
      while (i < bounds.length && seconds > bounds[i]) i++;
      entry.buckets[i]++;
    },
  };
}

/**
 * A counter for a hot path: `inc(key, labels)` adds one to the series named by `key` (the caller's
 * cheap string for its labels), with no per-call label hashing; series are built when scraped.
 */
export function hotPathCounter(registry: Registry, name: string, help: string): { inc(key: string, labels: Record<string, string>): void } {
  const series = new Map<string, { labels: Record<string, string>; value: number }>();
  registry.registerMetric(customMetric(name, help, 'counter', () => [...series.values()]));
  return {
    inc(key, labels) {
      const entry = series.get(key);
      if (entry) entry.value++;
      else series.set(key, { labels, value: 1 });
    },
  };
}

type CustomValue = { labels: Record<string, string | number>; value: number; metricName?: string };

/** A metric prom-client's registry can serve whose values are computed at scrape time. */
function customMetric(name: string, help: string, type: 'counter' | 'histogram', values: () => CustomValue[]) {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
    reset: () => undefined,
  } as unknown as Parameters<Registry['registerMetric']>[0];
}

/** The outbox's backlog, read when scraped: pending events and the age of the oldest. */
export function outboxMetrics(registry: Registry, stats: () => Promise<{ pending: number; oldestAt?: Date }>): void {
  let last: Promise<{ pending: number; oldestAt?: Date }> | undefined;
  // One read serves both gauges of a scrape; a store that is down reads as NaN, not a failed scrape.
  const read = () =>
    (last ??= stats()
      .catch(() => ({ pending: Number.NaN, oldestAt: undefined }))
      .finally(() => setTimeout(() => (last = undefined), 0)));
  new Gauge({
    name: 'outbox_pending_events',
    help: 'Events written but not yet confirmed by the broker',
    registers: [registry],
    async collect() {
      this.set((await read()).pending);
    },
  });
  new Gauge({
    name: 'outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest event not yet confirmed by the broker (0 when none)',
    registers: [registry],
    async collect() {
      const { oldestAt } = await read();
      this.set(oldestAt ? (Date.now() - oldestAt.getTime()) / 1000 : 0);
    },
  });
}
