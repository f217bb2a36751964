// The gateway's own Prometheus metrics (requests by route come from @acct/shared's httpMetrics):
// calls to the services by upstream and outcome.
import { hotPathCounter, type Registry } from '@acct/shared';

/** An observer per upstream, told each call's outcome (answered, timeout, unavailable). */
export function upstreamMetrics(registry: Registry): (upstream: string) => (outcome: string) => void {
  const calls = hotPathCounter(registry, 'gateway_upstream_requests_total', 'Calls to the services by upstream and outcome (answered, timeout, unavailable)');
  return (upstream) => (outcome) => calls.inc(`${upstream} ${outcome}`, { upstream, outcome });
}
