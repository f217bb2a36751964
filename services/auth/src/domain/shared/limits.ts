// The domain's use of rate limits: the store answers allowed or retry-after, the use case decides
// that a spent limit is a 429, and counts the refusal.
import { AuthErrors } from '../../errors';
import type { LimiterName, Needs } from './ports';

/** Spends one point; a spent limit is refused with Retry-After. */
export async function enforceLimit(deps: Needs<'rateLimits' | 'metrics'>, name: LimiterName, key: string): Promise<void> {
  const answer = await deps.rateLimits.consume(name, key);
  if (answer.allowed) return;
  deps.metrics.rateLimited(name);
  throw AuthErrors.rateLimited(answer.retryAfterMs / 1000);
}

/** Spends one point; answers whether there was one (for a limit that must not answer 429). */
export async function withinLimit(deps: Needs<'rateLimits' | 'metrics'>, name: LimiterName, key: string): Promise<boolean> {
  const { allowed } = await deps.rateLimits.consume(name, key);
  if (!allowed) deps.metrics.rateLimited(name);
  return allowed;
}
