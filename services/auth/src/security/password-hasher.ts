// Password hashing: bcrypt over an HMAC-SHA-256 pre-hash (so bcrypt's 72-byte limit never silently
// truncates), a dummy compare for unknown accounts, and cost upgrades on the next login.
import { createHmac } from 'node:crypto';
import { availableParallelism } from 'node:os';
import bcrypt from 'bcrypt';
import type { PasswordHasher, PasswordWorkRefused } from '../domain/shared/ports';

// A fixed, public key: the pre-hash only normalises length; bcrypt does the work.
const PREHASH_KEY = 'acct-password-prehash-v1';

/** Why a task was not run: the queue was full, it waited past its deadline, or its caller went away. */
export class TaskRefused extends Error {
  override name = 'TaskRefused';
}

export interface QueueBounds {
  /** Tasks that may wait at once; one more is refused at once. */
  maxQueue: number;
  /** How long a task may wait for its turn; past it, it is dropped when its turn comes. */
  maxWaitMs: number;
}

/**
 * At most `limit` tasks at once; the rest wait in arrival order, in a bounded queue. Under overload
 * no work piles up that nobody waits for: a full queue refuses at once, and a task whose deadline
 * passed or whose caller left (its signal aborted) is dropped when its turn comes.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** Told how long each task that had to wait waited (seconds). */
  onWait?: (seconds: number) => void;

  constructor(
    private readonly limit: number,
    private readonly bounds: QueueBounds = { maxQueue: Infinity, maxWaitMs: Infinity },
  ) {}

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw new TaskRefused('the caller went away');
    if (this.active >= this.limit) {
      if (this.waiting.length >= this.bounds.maxQueue) throw new TaskRefused('the queue is full');
      const since = process.hrtime.bigint();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      const waited = Number(process.hrtime.bigint() - since) / 1e9;
      this.onWait?.(waited);
      // This task holds a slot now: one it gives up passes it on.
      if (waited * 1000 > this.bounds.maxWaitMs || signal?.aborted) {
        this.release();
        throw new TaskRefused(signal?.aborted ? 'the caller went away' : 'it waited past its deadline');
      }
    } else this.active++;
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

export class BcryptPasswordHasher implements PasswordHasher {
  private dummy?: Promise<string>;
  // bcrypt runs on libuv's thread pool (4 threads): more hashes at once than cores only thrash
  // (measured: 0.75 of the bcrypt ceiling with 4 at once on 2 cores, 0.91 with 2), and a pool full
  // of hashes would stall every other pool user (dns.lookup, fs, crypto).
  private readonly slots: Semaphore;

  constructor(
    private readonly cost: number,
    concurrency: number = availableParallelism(),
    bounds?: QueueBounds,
  ) {
    this.slots = new Semaphore(Math.max(1, concurrency), bounds);
  }

  /** Hashes and compares waiting for a slot. */
  get waiting(): number {
    return this.slots.queued;
  }

  /** Told how long each waiting hash or compare waited (seconds). */
  set onWait(observer: ((seconds: number) => void) | undefined) {
    this.slots.onWait = observer;
  }

  private prehash(password: string): string {
    return createHmac('sha256', PREHASH_KEY).update(password, 'utf8').digest('base64');
  }

  hash(password: string, signal?: AbortSignal): Promise<string | PasswordWorkRefused> {
    return this.run(() => bcrypt.hash(this.prehash(password), this.cost), signal);
  }

  verify(password: string, hash: string, signal?: AbortSignal): Promise<boolean | PasswordWorkRefused> {
    return this.run(() => bcrypt.compare(this.prehash(password), hash), signal);
  }

  /** A task the slots refused is answered as such: `abandoned` when its caller went away, `busy` otherwise. */
  private async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T | PasswordWorkRefused> {
    try {
      return await this.slots.run(task, signal);
    } catch (err) {
      if (err instanceof TaskRefused) return { refused: signal?.aborted ? 'abandoned' : 'busy' };
      throw err;
    }
  }

  needsUpgrade(hash: string): boolean {
    try {
      return bcrypt.getRounds(hash) < this.cost;
    } catch {
      return false;
    }
  }

  /** Spends one compare's time, so that an unknown email costs what a known one does. */
  async burn(password: string, signal?: AbortSignal): Promise<void | PasswordWorkRefused> {
    this.dummy ??= bcrypt.hash('dummy-password-never-matches', this.cost);
    const dummy = await this.dummy;
    const answer = await this.run(() => bcrypt.compare(this.prehash(password), dummy), signal);
    if (typeof answer === 'object') return answer;
  }
}
