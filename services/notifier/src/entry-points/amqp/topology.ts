// The queues the notifier consumes, declared idempotently at every (re)connect: durable quorum
// queues bound to the events exchange (the bindings come from the handler table), per-delay retry
// queues that dead-letter back to their queue when their TTL passes, and a dead-letter queue each.
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
    retries: retryDelaysMs.map((delayMs) => ({ name: `${prefix}${name}.retry.${delayMs}ms`, delayMs })),
    dead: `${prefix}${name}.dead`,
  });
  return [spec('notifier.push', eventsOfQueue('push')), spec('notifier.email', eventsOfQueue('email'))];
}

export async function declareTopology(channel: Channel, exchange: string, specs: QueueSpec[]): Promise<void> {
  await channel.assertExchange(exchange, 'topic', { durable: true });
  for (const spec of specs) {
    await channel.assertQueue(spec.name, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await channel.assertQueue(spec.dead, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    for (const retry of spec.retries) {
      await channel.assertQueue(retry.name, {
        durable: true,
        arguments: { 'x-message-ttl': retry.delayMs, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': spec.name },
      });
    }
    for (const key of spec.bindings) await channel.bindQueue(spec.name, exchange, key);
  }
}
