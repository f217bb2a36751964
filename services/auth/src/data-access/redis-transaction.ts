// Runs a MULTI/EXEC, answering each command's reply, and throws on any failed command, which ioredis
// otherwise reports only in place; and waits for replicas to hold a write that a failover must not lose.
import type { ChainableCommander } from 'ioredis';
import type { Redis } from '@acct/shared/redis';

export async function execOrThrow(multi: ChainableCommander): Promise<unknown[]> {
  const results = await multi.exec();
  const failed = results?.find(([err]) => err);
  if (!results || failed) throw failed?.[0] ?? new Error('Redis transaction aborted');
  // Each command's answer, in order.
  return results.map(([, value]) => value);
}

/** How many replicas must hold a write before it is answered, and how long to wait for them. */
export interface ReplicaAck {
  replicas: number;
  timeoutMs: number;
}

/** After a WAIT that timed out, how long writes go unconfirmed before the next one is tried. */
const UNCONFIRMED_FOR_MS = 5_000;

/**
 * WAIT until `ack.replicas` replicas hold every write this connection made so far (Redis replicates
 * asynchronously: a master killed before that loses them). Sent in a pipeline beside a read of the
 * written key, so that a Redis Cluster sends it to the master of that key's slot (a keyless WAIT
 * goes to any node).
 *
 * A WAIT holds its connection, and every command queued behind it, until the replicas answer or the
 * timeout passes. So past one timeout (a replica down or still syncing) the writes are answered
 * without waiting for 5 s, then a WAIT is tried again: a replica down costs one timeout every few
 * seconds, never a queue of them, and never stops a login.
 */
export class ReplicaWait {
  private unconfirmedUntil = 0;

  constructor(
    private readonly ack: ReplicaAck | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Waits for the replicas after a write of `key`; answers how many confirmed (0 when not waited for). */
  async after(redis: Redis, key: string): Promise<number> {
    const ack = this.ack;
    if (!ack || ack.replicas <= 0 || this.now() < this.unconfirmedUntil) return 0;
    const replies = await redis.pipeline().exists(key).call('WAIT', String(ack.replicas), String(ack.timeoutMs)).exec();
    const failed = replies?.find(([err]) => err);
    if (!replies || failed) throw failed?.[0] ?? new Error('Redis WAIT aborted');
    const confirmed = Number(replies[1][1]);
    if (confirmed < ack.replicas) this.unconfirmedUntil = this.now() + UNCONFIRMED_FOR_MS;
    return confirmed;
  }
}
