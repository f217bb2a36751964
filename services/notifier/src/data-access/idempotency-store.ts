// At most once in effect across replicas and redeliveries: an event id is claimed with SET NX and a
// claim token (a short lease, so a crashed claimant's events are taken over), marked done on
// success, and released on failure, only by its own claimant, so that a retry may send.
//
// A done record is kept only as long as a copy of the event can still arrive (DONE_TTL_SECONDS, a
// day): the outbox publishes a copy again only when it could not record a publish, a lease (30 s)
// after its store answers again, so a day covers a store outage of a day. Each record is one short
// key (`e:<the event id's 16 bytes, base64url>` = 1): 144-162 bytes an event in Redis 7, against
// 202-213 for the earlier `event:<uuid>` = done, which was kept a week (bench/idempotency-memory.mjs,
// bench/RESULTS.md).
import { randomUUID } from 'node:crypto';
import type { Redis } from '@acct/shared/redis';

export type Claim = { status: 'claimed'; token: string } | { status: 'done' | 'in_progress' };

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/** A done record's value; a claim's is `claim:<uuid>`. */
const DONE = '1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An event id as few bytes as it can be told apart in: a UUID's 16 bytes as base64url, anything else as it is. */
export const compactId = (eventId: string) => (UUID.test(eventId) ? Buffer.from(eventId.replace(/-/g, ''), 'hex').toString('base64url') : `~${eventId}`);

export class IdempotencyStore {
  constructor(
    private readonly redis: Redis,
    private readonly options: { claimTtlMs: number; doneTtlSeconds: number },
  ) {}

  async claim(eventId: string): Promise<Claim> {
    const key = this.key(eventId);
    const token = `claim:${randomUUID()}`;
    if ((await this.redis.set(key, token, 'PX', this.options.claimTtlMs, 'NX')) === 'OK') return { status: 'claimed', token };
    return { status: (await this.redis.get(key)) === DONE ? 'done' : 'in_progress' };
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
        await this.redis.set(this.key(eventId), DONE, 'EX', this.options.doneTtlSeconds);
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
    return `e:${compactId(eventId)}`;
  }
}
