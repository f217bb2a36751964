// Start-up retry: try a connection until it answers or a deadline passes, with capped back-off.
import type { Logger } from 'pino';
import { withoutPassword } from './config';

export interface RetryOptions {
  what: string;
  logger: Logger;
  /** Give up after this long (ms). */
  deadlineMs?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function retryUntil<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { what, logger, deadlineMs = 30_000, initialDelayMs = 200, maxDelayMs = 2_000 } = options;
  const deadline = Date.now() + deadlineMs;
  let delay = initialDelayMs;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() + delay > deadline) {
        throw new Error(`Could not connect to ${what} within ${deadlineMs} ms: ${(err as Error).message}`, { cause: err });
      }
      logger.warn({ attempt: n, retryInMs: delay, reason: (err as Error).message }, `Waiting for ${what}`);
      await sleep(delay);
      delay = Math.min(delay * 2, maxDelayMs);
    }
  }
}

/** Hides the password of a connection URL so that it can be logged (the config's rule, one for both). */
export const redactUrl = withoutPassword;
