// Answers queued forgot-password requests on its own schedule, a poll with ±50% jitter, never right
// after the request that queued them: the work a known address costs (a token, a link, an event)
// then lands on the event loop at no time an asker can tie to their request. Any replica may take
// a request; one whose worker died is taken again when its lease runs out.
import { PollLoop, withRequestId, type Logger } from '@acct/shared';
import type { ClaimedResetRequest, ResetRequests } from '../../domain/ports';

export class ResetMailJob {
  private readonly loop: PollLoop;

  constructor(
    private readonly queue: Pick<ResetRequests, 'claim' | 'remove'>,
    private readonly answer: (request: ClaimedResetRequest) => Promise<void>,
    private readonly logger: Logger,
    private readonly options: { pollMs: number; maxAttempts?: number },
  ) {
    this.loop = new PollLoop(
      () => this.drain(),
      (err) => this.logger.warn({ reason: err.message }, 'Reset request pass failed'),
      { pollMs: options.pollMs, jitter: 0.5 },
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Answers every request that is due; answers how many were handled. */
  async drain(): Promise<number> {
    let handled = 0;
    for (;;) {
      const request = await this.queue.claim();
      if (!request) return handled;
      // Its records name the forgot-password request that queued it.
      if (!(await withRequestId(request.requestId, () => this.answerOnce(request)))) return handled;
      await this.queue.remove(request.id);
      handled++;
      if (!this.loop.active) return handled;
    }
  }

  /** Answers one request; false when it failed and is to be tried again (it stays leased until its lease runs out). */
  private async answerOnce(request: ClaimedResetRequest): Promise<boolean> {
    try {
      await this.answer(request);
    } catch (err) {
      const maxAttempts = this.options.maxAttempts ?? 5;
      if (request.attempts < maxAttempts) {
        this.logger.warn({ attempts: request.attempts, reason: (err as Error).message }, 'Reset request failed; will retry');
        return false;
      }
      this.logger.error({ attempts: request.attempts, reason: (err as Error).message }, 'Reset request failed for good; dropped');
    }
    return true;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
