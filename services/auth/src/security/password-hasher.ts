// Password hashing: bcrypt over an HMAC-SHA-256 pre-hash (so bcrypt's 72-byte limit never silently
// truncates), a dummy compare for unknown accounts, and cost upgrades on the next login.
import { createHmac } from 'node:crypto';
import { availableParallelism } from 'node:os';
import bcrypt from 'bcrypt';
import type { PasswordHasher } from '../domain/ports';

// A fixed, public key: the pre-hash only normalises length; bcrypt does the work.
const PREHASH_KEY = 'acct-password-prehash-v1';

/** At most `limit` tasks at once; the rest wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** Told how long each task that had to wait waited (seconds). */
  onWait?: (seconds: number) => void;

  constructor(private readonly limit: number) {}

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) {
      const since = process.hrtime.bigint();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      this.onWait?.(Number(process.hrtime.bigint() - since) / 1e9);
    } else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
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
  ) {
    this.slots = new Semaphore(Math.max(1, concurrency));
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

  hash(password: string): Promise<string> {
    return this.slots.run(() => bcrypt.hash(this.prehash(password), this.cost));
  }

  verify(password: string, hash: string): Promise<boolean> {
    return this.slots.run(() => bcrypt.compare(this.prehash(password), hash));
  }

  needsUpgrade(hash: string): boolean {
    try {
      return bcrypt.getRounds(hash) < this.cost;
    } catch {
      return false;
    }
  }

  /** Spends one compare's time, so that an unknown email costs what a known one does. */
  async burn(password: string): Promise<void> {
    this.dummy ??= this.slots.run(() => bcrypt.hash('dummy-password-never-matches', this.cost));
    const dummy = await this.dummy;
    await this.slots.run(() => bcrypt.compare(this.prehash(password), dummy));
  }
}
