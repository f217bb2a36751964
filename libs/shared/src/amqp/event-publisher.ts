// Publishes outbox entries to the events topic exchange on a confirm channel: persistent,
// messageId = event id, resolved only when the broker confirmed.
import type { ConfirmChannel } from 'amqplib';
import type { Logger } from 'pino';
import { AmqpClient } from './client';
import type { EventType, Publisher } from '../events';

export class EventPublisher implements Publisher {
  private channel?: ConfirmChannel;

  constructor(private readonly exchange: string) {}

  /** Registers the channel setup on the client; it runs again after every reconnect. */
  async attach(client: AmqpClient): Promise<void> {
    await client.use(async (connection) => {
      const channel = await connection.createConfirmChannel();
      await channel.assertExchange(this.exchange, 'topic', { durable: true });
      channel.on('close', () => {
        if (this.channel !== channel) return;
        this.channel = undefined;
        // The broker closed the channel alone (a channel error): without a new connection no
        // channel would come back, and every publish would fail until the next reconnect.
        void connection.close().catch(() => undefined);
      });
      channel.on('error', () => undefined);
      this.channel = channel;
    });
  }

  publish(type: EventType, eventId: string, payload: Record<string, unknown>): Promise<void> {
    const channel = this.channel;
    if (!channel) return Promise.reject(new Error('RabbitMQ channel not available'));
    return new Promise((resolve, reject) => {
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
        },
        (err) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve()),
      );
    });
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
