// The one polling helper of the tests: waits until a check holds, or fails naming what it waited for.

import { scaled } from './time-scale';

/** Resolves once `check` answers true (or a value), polling every 20 ms; throws `describe()` after `timeoutMs` on the run's time scale. */
export async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, givenTimeoutMs = 5_000, describe: string | (() => string) = 'condition'): Promise<T> {
  const timeoutMs = scaled(givenTimeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${typeof describe === 'function' ? describe() : describe} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
