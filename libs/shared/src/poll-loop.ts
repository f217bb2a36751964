// A background loop that runs a pass, then sleeps until the next poll or until woken: the outbox
// relay and auth's reset-mail worker. A wake during a pass runs the next pass at once; stop() ends
// the sleep and answers when the pass under way has finished.

export interface PollLoopOptions {
  pollMs: number;
  /** Spread of each sleep around pollMs, as a fraction: 0.5 sleeps between 0.5 and 1.5 × pollMs. */
  jitter?: number;
}

export class PollLoop {
  private running?: Promise<void>;
  private halted = true;
  private woken = false;
  private wakeSleep?: () => void;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly onError: (err: Error) => void,
    private readonly options: PollLoopOptions,
  ) {}

  get active(): boolean {
    return !this.halted;
  }

  start(): void {
    if (this.running) return;
    this.halted = false;
    this.running = this.loop();
  }

  /** Runs the next pass now, or right after the one under way. */
  wake(): void {
    if (this.wakeSleep) this.wakeSleep();
    else this.woken = true;
  }

  /** Ends the loop; resolves when the pass under way has finished. */
  async stop(): Promise<void> {
    this.halted = true;
    this.wakeSleep?.();
    await this.running;
    this.running = undefined;
  }

  private async loop(): Promise<void> {
    while (!this.halted) {
      try {
        await this.pass();
      } catch (err) {
        this.onError(err as Error);
      }
      if (this.halted) break;
      if (this.woken) {
        this.woken = false;
        continue;
      }
      await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    const spread = this.options.jitter ?? 0;
    const ms = this.options.pollMs * (1 - spread + 2 * spread * Math.random());
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeSleep = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeSleep = done;
    });
  }
}
