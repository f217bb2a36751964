// Answers queued forgot-password requests on its own schedule, a poll with ±50% jitter, never right
// after the request that queued them: the work a known address costs (a token, a link, an event)
// then lands on the event loop at no time an asker can tie to their request. Any replica may take
// a request; one whose worker died is taken again when its lease runs out.
import type { Logger } from '@acct/shared';
import type { ClaimedResetRequest } from '../data-access/reset-request-queue';

export interface ResetRequestSource {
  claim(): Promise<ClaimedResetRequest | undefined>;
  remove(id: ClaimedResetRequest['id']): Promise<void>;
}

export class ResetMailWorker {
  private halted = false;
  private running?: Promise<void>;
  private wake?: () => void;

  constructor(
    private readonly queue: ResetRequestSource,
    private readonly answer: (request: ClaimedResetRequest) => Promise<void>,
    private readonly logger: Logger,
    private readonly options: { pollMs: number; maxAttempts?: number },
  ) {}

  start(): void {
    this.running = (async () => {
      while (!this.halted) {
        await this.drain().catch((err: Error) => this.logger.warn({ reason: err.message }, 'Reset request pass failed'));
        if (this.halted) break;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, this.options.pollMs * (0.5 + Math.random()));
          function done() {
            clearTimeout(timer);
            resolve();
          }
          this.wake = done;
        });
        this.wake = undefined;
      }
    })();
  }

  /** Answers every request that is due; answers how many were handled. */
  async drain(): Promise<number> {
    let handled = 0;
    while (!this.halted) {
      const request = await this.queue.claim();
      if (!request) return handled;
      try {
        await this.answer(request);
      } catch (err) {
        const maxAttempts = this.options.maxAttempts ?? 5;
        if (request.attempts < maxAttempts) {
          // Left leased: taken again when the lease runs out.
          this.logger.warn({ request_id: request.requestId, attempts: request.attempts, reason: (err as Error).message }, 'Reset request failed; will retry');
          return handled;
        }
        this.logger.error({ request_id: request.requestId, attempts: request.attempts, reason: (err as Error).message }, 'Reset request failed for good; dropped');
      }
      await this.queue.remove(request.id);
      handled++;
    }
    return handled;
  }

  async stop(): Promise<void> {
    this.halted = true;
    this.wake?.();
    await this.running;
  }
}
