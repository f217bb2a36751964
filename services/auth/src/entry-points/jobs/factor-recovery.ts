// Runs the mailbox recoveries' clock (domain/email/factor-recovery.ts) on a poll: reminders, then
// removals that came due. Any replica may run it; each step is claimed once in the store.
import { PollLoop, type Logger } from '@acct/shared';

export class FactorRecoveryJob {
  private readonly loop: PollLoop;

  constructor(
    run: () => Promise<{ reminded: number; completed: number }>,
    private readonly logger: Logger,
    options: { pollMs: number },
  ) {
    this.loop = new PollLoop(
      async () => {
        const { reminded, completed } = await run();
        if (reminded + completed > 0) this.logger.info({ reminded, completed }, 'Factor recoveries: reminders sent and removals done');
      },
      (err) => this.logger.warn({ reason: err.message }, 'Factor recovery pass failed'),
      { pollMs: options.pollMs, jitter: 0.2 },
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
