// At most once in effect across replicas and redeliveries: an event id is claimed with SET NX and a
// claim token (a short lease, so a crashed claimant's events are taken over), marked done on
// success, and released on failure, only by its own claimant, so that a retry may send.
import { randomUUID } from 'node:crypto';
import type { Redis } from '@acct/shared/redis';

export type Claim = { status: 'claimed'; token: string } | { status: 'done' | 'in_progress' };

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export class IdempotencyStore {
  constructor(
    private readonly redis: Redis,
    private readonly options: { claimTtlMs: number; doneTtlSeconds: number },
  ) {}

  async claim(eventId: string): Promise<Claim> {
    const key = this.key(eventId);
    const token = `claim:${randomUUID()}`;
    if ((await this.redis.set(key, token, 'PX', this.options.claimTtlMs, 'NX')) === 'OK') return { status: 'claimed', token };
    return { status: (await this.redis.get(key)) === 'done' ? 'done' : 'in_progress' };
  }

  /**
   * Records the event as done. The send has happened by now: were this lost, a redelivery after the
   * claim's lease would send again. So a failure (Redis failing over, say) is retried, from 100 ms
   * doubling to 2 s, for as long as the lease lasts; only then does it throw (the message stays
   * unacked, and a later delivery may send once more).
   */
  async markDone(eventId: string): Promise<void> {
    const deadline = Date.now() + this.options.claimTtlMs;
    for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
      try {
        await this.redis.set(this.key(eventId), 'done', 'EX', this.options.doneTtlSeconds);
        return;
      } catch (err) {
        if (Date.now() + wait > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** Gives the event up for a retry, unless someone else has claimed or finished it since. */
  async release(eventId: string, token: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key(eventId), token);
  }

  private key(eventId: string): string {
    return `event:${eventId}`;
  }
}
