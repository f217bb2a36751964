// What happens to a message whose handling failed: retried after the next back-off delay, or
// dead-lettered when the failure is permanent or the attempts are used up. A pure decision.

export interface RetryQueue {
  name: string;
  delayMs: number;
}

export type NextStep = { action: 'retry'; queue: string; delayMs: number; attempt: number } | { action: 'dead_letter'; reason: string };

/**
 * `attempt` counts from 1 (the first delivery); `retries` are the delay queues in order, so a
 * message gets `retries.length` retries after its first try.
 */
export function nextStep(failure: { permanent: boolean; reason: string }, attempt: number, retries: readonly RetryQueue[]): NextStep {
  if (failure.permanent) return { action: 'dead_letter', reason: `permanent: ${failure.reason}` };
  const retry = Number.isInteger(attempt) && attempt >= 1 ? retries[attempt - 1] : undefined;
  if (!retry) return { action: 'dead_letter', reason: `attempts exhausted: ${failure.reason}` };
  return { action: 'retry', queue: retry.name, delayMs: retry.delayMs, attempt: attempt + 1 };
}
