// Publishes outbox entries to the events topic exchange on a confirm channel: persistent,
// messageId = event id, resolved only when the broker confirmed it into a queue. Publishes are
// mandatory: an event no queue is bound for (auth up before any notifier declared its queues, a
// queue deleted by hand) comes back (basic.return, before its confirm) and the publish fails, so the
// outbox keeps it and tries again, where the broker would otherwise confirm and drop it. A confirm
// is waited for 5 s at most (confirm.ts), a nack fails the publish as well. A channel that keeps
// nacking (NACKS_BEFORE_RECONNECT in a row: the broker could not take the events, where our queues
// have no length limit that would) is given up with its connection, for the next node: under npm
// run test:ha, once after a RabbitMQ 3.10 queue leader was killed, a surviving node nacked every
// publish of the reconnected publisher for the rest of the run (over a minute), while the queue had
// a leader, its bindings and its consumer.
import type { ConfirmChannel } from 'amqplib';
import type { Logger } from 'pino';
import { AmqpClient, type AmqpConnection } from './client';
import { CONFIRM_TIMEOUT_MS, confirmWithin } from './confirm';
import type { EventType, Publisher } from '../events';

/** How many nacks in a row make the publisher give up its channel and connection (3). */
export const NACKS_BEFORE_RECONNECT = 3;

export class EventPublisher implements Publisher {
  /** Nacks in a row on the current channel. */
  private nacks = 0;
  private channel?: ConfirmChannel;
  private connection?: AmqpConnection;
  /** Event ids the broker returned as unroutable, until their confirm arrives (it follows the return). */
  private readonly returned = new Set<string>();

  constructor(
    private readonly exchange: string,
    private readonly confirmTimeoutMs = CONFIRM_TIMEOUT_MS,
  ) {}

  /** Registers the channel setup on the client; it runs again after every reconnect. */
  async attach(client: AmqpClient): Promise<void> {
    await client.use(async (connection) => {
      const channel = await connection.createConfirmChannel();
      this.returned.clear();
      this.nacks = 0;
      await channel.assertExchange(this.exchange, 'topic', { durable: true });
      channel.on('close', () => {
        if (this.channel !== channel) return;
        this.channel = undefined;
        // The broker closed the channel alone (a channel error): without a new connection no
        // channel would come back, and every publish would fail until the next reconnect.
        void connection.close().catch(() => undefined);
      });
      channel.on('error', () => undefined);
      channel.on('return', (msg: { properties: { messageId?: string } }) => {
        if (msg.properties.messageId) this.returned.add(msg.properties.messageId);
      });
      this.channel = channel;
      this.connection = connection;
    });
  }

  publish(type: EventType, eventId: string, payload: Record<string, unknown>): Promise<void> {
    const channel = this.channel;
    if (!channel) return Promise.reject(new Error('RabbitMQ channel not available'));
    const connection = this.connection;
    return confirmWithin(
      (done) =>
        channel.publish(
          this.exchange,
          type,
          Buffer.from(JSON.stringify(payload)),
          {
            persistent: true,
            messageId: eventId,
            type,
            contentType: 'application/json',
            timestamp: Math.floor(Date.now() / 1000),
            headers: payload.requestId ? { 'x-request-id': payload.requestId } : {},
            mandatory: true,
          },
          (err: unknown) => {
            const unroutable = this.returned.delete(eventId);
            if (!err) this.nacks = 0;
            else if (++this.nacks >= NACKS_BEFORE_RECONNECT) this.giveUp(channel, connection);
            done(err ?? (unroutable ? new Error(`no queue is bound for ${type} on ${this.exchange}`) : null));
          },
        ),
      this.confirmTimeoutMs,
      () => this.giveUp(channel, connection),
    );
  }

  /**
   * Gives the channel up with its connection: the client connects again (to the next node) and the
   * setup above opens a new channel; the publishes still waiting on this one fail now.
   */
  private giveUp(channel: ConfirmChannel, connection: AmqpConnection | undefined): void {
    if (this.channel !== channel) return;
    this.channel = undefined;
    void connection?.close().catch(() => undefined);
  }
}

/** Connects an event publisher (retrying at start, reconnecting after); a failed start closes the client. */
export async function connectPublisher(options: { url: string; exchange: string; connectionName: string }, logger: Logger): Promise<{ amqp: AmqpClient; publisher: EventPublisher }> {
  const amqp = new AmqpClient(options.url, logger, { connectionName: options.connectionName });
  const publisher = new EventPublisher(options.exchange);
  try {
    await publisher.attach(amqp);
    await amqp.start();
  } catch (err) {
    await amqp.close();
    throw err;
  }
  return { amqp, publisher };
}
