// Work that must not interleave with another replica's (a check and a write under one lock): a
// lock held elsewhere past the wait is a 503 the client retries (Retry-After), with nothing done.
import { AuthErrors } from '../../errors';
import type { Needs } from './ports';

export async function exclusively<T>(deps: Needs<'locks'>, name: string, work: () => Promise<T>): Promise<T> {
  const done = await deps.locks.run(name, work);
  if (done === 'busy') throw AuthErrors.busy();
  return done;
}
