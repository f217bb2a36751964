// The domain's use of rate limits: the store answers allowed or retry-after, the use case decides
// that a spent limit is a 429.
import { AuthErrors } from '../errors';
import type { LimiterName, RateLimiter } from './ports';

/** Spends one point; a spent limit is refused with Retry-After. */
export async function enforceLimit(limits: RateLimiter, name: LimiterName, key: string): Promise<void> {
  const answer = await limits.consume(name, key);
  if (!answer.allowed) throw AuthErrors.rateLimited(answer.retryAfterMs / 1000);
}

/** Spends one point; answers whether there was one (for a limit that must not answer 429). */
export async function withinLimit(limits: RateLimiter, name: LimiterName, key: string): Promise<boolean> {
  return (await limits.consume(name, key)).allowed;
}
