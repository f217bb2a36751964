// The queues the notifier consumes, declared idempotently at every (re)connect: durable quorum
// queues bound to the events exchange (the bindings come from the handler table), per-delay retry
// queues that dead-letter back to their queue when their TTL passes, and a dead-letter queue each.
// Every one is a quorum queue, replicated over a RabbitMQ cluster's nodes (a classic queue lives on
// one node and is lost with it).
//
// Retry queues are named by their delay (`….delay.<ms>ms`), so changing RETRY_DELAYS_MS declares new
// ones. The old ones are not orphaned: each expires (`x-expires`) an hour past its delay after it was
// last declared, and every notifier declares its own every REDECLARE_MS (well under that hour). A
// queue no replica uses any more has, by then, sent every message back to its work queue (TTL shorter
// than the expiry, at-least-once dead-lettering), and RabbitMQ deletes it.
import type { Channel } from 'amqplib';
import type { EventType } from '@acct/shared';
import { eventsOfQueue } from '../../domain/notifications';

export interface QueueSpec {
  name: string;
  bindings: EventType[];
  /** Retry queue names, one per back-off delay, in order. */
  retries: Array<{ name: string; delayMs: number }>;
  dead: string;
}

export function queueSpecs(prefix: string, retryDelaysMs: number[]): QueueSpec[] {
  const spec = (name: string, bindings: EventType[]): QueueSpec => ({
    name: `${prefix}${name}`,
    bindings,
    retries: retryDelaysMs.map((delayMs) => ({ name: `${prefix}${name}.delay.${delayMs}ms`, delayMs })),
    dead: `${prefix}${name}.dead`,
  });
  return [spec('notifier.push', eventsOfQueue('push')), spec('notifier.email', eventsOfQueue('email'))];
}

/** How often a notifier declares its queues again, which keeps its retry queues from expiring. */
export const REDECLARE_MS = 10 * 60_000;
/** How long past its delay a retry queue no notifier declares lives on. */
const RETRY_QUEUE_EXPIRY_MARGIN_MS = 60 * 60_000;

export const QUORUM = { 'x-queue-type': 'quorum' } as const;

/** A retry queue's arguments: its delay, its way back, and its expiry once unused. */
export function retryQueueArguments(workQueue: string, delayMs: number): Record<string, unknown> {
  return {
    ...QUORUM,
    'x-message-ttl': delayMs,
    'x-dead-letter-exchange': '',
    'x-dead-letter-routing-key': workQueue,
    // A message on its way back is kept until its work queue confirms it (RabbitMQ ≥ 3.10), which
    // asks for publishes to be refused rather than old messages dropped when the queue is full.
    'x-dead-letter-strategy': 'at-least-once',
    'x-overflow': 'reject-publish',
    'x-expires': delayMs + RETRY_QUEUE_EXPIRY_MARGIN_MS,
  };
}

export async function declareTopology(channel: Channel, exchange: string, specs: QueueSpec[]): Promise<void> {
  await channel.assertExchange(exchange, 'topic', { durable: true });
  for (const spec of specs) {
    await channel.assertQueue(spec.name, { durable: true, arguments: QUORUM });
    await channel.assertQueue(spec.dead, { durable: true, arguments: QUORUM });
    for (const retry of spec.retries) await channel.assertQueue(retry.name, { durable: true, arguments: retryQueueArguments(spec.name, retry.delayMs) });
    for (const key of spec.bindings) await channel.bindQueue(spec.name, exchange, key);
  }
}
