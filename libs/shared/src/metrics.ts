// Prometheus metrics (prom-client), served by each service on its health port at GET /metrics,
// never on a public port. One registry per service, labelled with the service's name, with the
// default process metrics. Labels carry route templates, methods, statuses and outcomes only: never
// an email, an id or a token.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export { Counter, Gauge, Histogram, Registry };

export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Seconds buckets for request handling, from a cache hit to a slow bcrypt under load. */
export const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface HttpMetrics {
  /** One answered request: its route template (`unmatched` for none), method and status. */
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function httpMetrics(registry: Registry): HttpMetrics {
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by route template, method and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const duration = new Histogram({ name: 'http_request_duration_seconds', help: 'Time to answer an HTTP request', labelNames: ['method', 'route', 'status'], buckets: LATENCY_BUCKETS, registers: [registry] });
  return {
    observe(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
  };
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
