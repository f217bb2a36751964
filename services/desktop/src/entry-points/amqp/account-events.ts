// The account events desktop acts on: `account.deleted` drops the user's sync data and devices. One
// durable quorum queue (`<prefix>desktop.accounts`) bound to the events exchange, declared at every
// (re)connect; a message is acknowledged once its work is done, so a crash or a store outage
// redelivers it, and the work is idempotent (a replay deletes nothing else). A message that is not
// a valid event is logged and dropped: no redelivery can make it one.
import type { AmqpClient } from '@acct/shared/amqp';
import { parseEvent, type EventPayload, type Logger } from '@acct/shared';

export const accountEventsQueue = (prefix: string) => `${prefix}desktop.accounts`;

/** How long a failed message waits before it is handed back (the store may be coming back). */
const RETRY_DELAY_MS = 1_000;

export async function consumeAccountEvents(
  amqp: AmqpClient,
  options: { exchange: string; queuePrefix: string },
  onDeleted: (event: EventPayload<'account.deleted'>) => Promise<void>,
  logger: Logger,
): Promise<void> {
  const queue = accountEventsQueue(options.queuePrefix);
  await amqp.use(async (connection) => {
    const channel = await connection.createChannel();
    await channel.assertExchange(options.exchange, 'topic', { durable: true });
    await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await channel.bindQueue(queue, options.exchange, 'account.deleted');
    await channel.prefetch(8);
    await channel.consume(queue, (message) => {
      if (!message) return;
      let event: EventPayload<'account.deleted'>;
      try {
        event = parseEvent('account.deleted', JSON.parse(message.content.toString('utf8')));
      } catch (err) {
        logger.error({ reason: (err as Error).message, routing_key: message.fields.routingKey }, 'Dropped an account event that is not one');
        channel.ack(message);
        return;
      }
      onDeleted(event).then(
        () => {
          try {
            channel.ack(message);
          } catch {
            // The channel closed meanwhile (a shutdown): the broker hands the message back, and the work is idempotent.
          }
        },
        (err: Error) => {
          logger.warn({ reason: err.message, event_id: event.eventId }, 'Account deletion not applied yet; it comes back');
          setTimeout(() => {
            try {
              channel.nack(message, false, true);
            } catch {
              // The channel closed meanwhile: the broker hands the message back by itself.
            }
          }, RETRY_DELAY_MS).unref();
        },
      );
    });
  });
}
