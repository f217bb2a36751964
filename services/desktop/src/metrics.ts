// Desktop's Prometheus metrics: its registry, with the outbox's backlog (requests by route come from
// @acct/shared's httpMetrics on the same registry).
import { createRegistry, outboxMetrics, type Registry } from '@acct/shared';
import type { Outbox } from '@acct/shared/mongo';

export function desktopMetrics(outbox: Outbox): Registry {
  const registry = createRegistry('desktop');
  outboxMetrics(registry, () => outbox.pendingStats());
  return registry;
}
