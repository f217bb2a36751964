// The notifier's Prometheus metrics: events handled by type and outcome, and how long each took.
import { Counter, Histogram, LATENCY_BUCKETS, type Registry } from '@acct/shared';

/** Events handled, by type and outcome (sent, no_devices, stored, duplicate, deferred, retry, dead_lettered), and how long each took. */
export function eventMetrics(registry: Registry) {
  const events = new Counter({ name: 'notifier_events_total', help: 'Events handled by type and outcome', labelNames: ['type', 'outcome'], registers: [registry] });
  const duration = new Histogram({ name: 'notifier_event_duration_seconds', help: 'Time to handle an event, by type and outcome', labelNames: ['type', 'outcome'], buckets: LATENCY_BUCKETS, registers: [registry] });
  return (type: string, outcome: string, seconds: number) => {
    events.inc({ type, outcome });
    duration.observe({ type, outcome }, seconds);
  };
}
