// A temporary queue bound to every key of a test's exchange: what reaches RabbitMQ, for tests to read.
import type amqp from 'amqplib';
import { connectAnyNode } from '@acct/shared/amqp';
import { until } from './until';

export interface TappedEvent {
  routingKey: string;
  messageId?: string;
  payload: Record<string, any>;
}

/** A temporary queue bound to every key of the test's exchange; collects what reaches RabbitMQ. */
export class EventTap {
  readonly received: TappedEvent[] = [];
  private constructor(private readonly connection: Awaited<ReturnType<typeof amqp.connect>>) {}

  static async open(url: string, exchange: string): Promise<EventTap> {
    const connection = await connectAnyNode(url);
    // A node killed under it (npm run test:ha) ends the tap's connection: not the test process.
    connection.on('error', () => undefined);
    const tap = new EventTap(connection);
    const channel = await connection.createChannel();
    await channel.assertExchange(exchange, 'topic', { durable: true });
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    await channel.bindQueue(queue, exchange, '#');
    await channel.consume(queue, (msg) => {
      if (!msg) return;
      tap.received.push({ routingKey: msg.fields.routingKey, messageId: msg.properties.messageId, payload: JSON.parse(msg.content.toString()) });
      channel.ack(msg);
    });
    return tap;
  }

  /** Waits for an event that matches; fails the test with what did arrive if none does in time. */
  waitFor(routingKey: string, match: (payload: Record<string, any>) => boolean = () => true, timeoutMs = 5_000): Promise<TappedEvent> {
    return until(
      () => this.received.find((e) => e.routingKey === routingKey && match(e.payload)),
      timeoutMs,
      () => `a ${routingKey} event (received: ${this.received.map((e) => e.routingKey).join(', ') || 'nothing'})`,
    );
  }

  async close(): Promise<void> {
    await this.connection.close().catch(() => undefined);
  }
}
