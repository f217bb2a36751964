// Consumes the notifier's queues with manual acks and a prefetch. Each message is validated, claimed
// (idempotency), handled, then acked; failures are retried through the delay queues with back-off
// and dead-lettered when permanent, invalid, or out of attempts. One log record per handled message.
import type { ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { InternalHeaders, isEventType, parseEvent, withRequestId, type EventPayload, type EventType, type Logger } from '@acct/shared';
import { CONFIRM_TIMEOUT_MS, confirmWithin, type AmqpClient, type AmqpConnection } from '@acct/shared/amqp';
import type { IdempotencyStore } from '../../data-access/idempotency-store';
import { isPermanent } from '../../domain/delivery-errors';
import { handleEvent } from '../../domain/notifications';
import { nextStep } from '../../domain/retry-policy';
import type { NotifierDeps } from '../../domain/ports';
import { REDECLARE_MS, declareTopology, type QueueSpec } from './topology';

const ATTEMPT_HEADER = 'x-attempt';
const REASON_HEADER = 'x-dead-letter-reason';

export interface ConsumerOptions {
  exchange: string;
  prefetch: number;
  queues: QueueSpec[];
  /** Told of every handled message: its type (a known one, else `unknown`), outcome and handling time. */
  observe?: (type: string, outcome: string, seconds: number) => void;
}

export class EventConsumer {
  private channel?: ConfirmChannel;
  private connection?: AmqpConnection;
  private consumerTags: string[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = false;

  constructor(
    private readonly deps: NotifierDeps,
    private readonly idempotency: IdempotencyStore,
    private readonly options: ConsumerOptions,
    private readonly logger: Logger,
  ) {}

  /** Declares the topology and starts consuming, now and after every reconnect. */
  async attach(client: AmqpClient): Promise<void> {
    await client.use(async (connection) => {
      if (this.stopping) return;
      const channel = await connection.createConfirmChannel();
      channel.on('error', (err: Error) => this.logger.warn({ reason: err.message }, 'AMQP channel error'));
      await declareTopology(channel, this.options.exchange, this.options.queues);
      // Declared again while connected: an unused retry queue expires (topology.ts), a used one never.
      const redeclare = setInterval(() => {
        declareTopology(channel, this.options.exchange, this.options.queues).catch((err: Error) => this.logger.warn({ reason: err.message }, 'Declaring the queues again failed'));
      }, REDECLARE_MS);
      redeclare.unref();
      channel.on('close', () => {
        clearInterval(redeclare);
        // The broker closed the channel alone (a channel error) and with it every consumer on it:
        // start over on a new connection, which consumes again.
        if (!this.stopping && this.channel === channel) void connection.close().catch(() => undefined);
      });
      await channel.prefetch(this.options.prefetch);
      this.channel = channel;
      this.connection = connection;
      this.consumerTags = [];
      for (const queue of this.options.queues) {
        const { consumerTag } = await channel.consume(
          queue.name,
          (msg) => {
            if (msg) return this.track(this.onMessage(channel, queue, msg));
            // The broker cancelled the consumer (its queue was deleted, or its node is leaving the
            // cluster): start over on a new connection, which consumes again, on another node if need be.
            if (this.stopping) return;
            this.logger.warn({ queue: queue.name }, 'The broker cancelled a consumer; reconnecting');
            void connection.close().catch(() => undefined);
          },
          { noAck: false },
        );
        this.consumerTags.push(consumerTag);
      }
    });
  }

  /** Stops taking messages, lets the ones in hand finish and ack, then closes the channel. */
  async stop(): Promise<void> {
    this.stopping = true;
    const channel = this.channel;
    if (channel) await Promise.all(this.consumerTags.map((tag) => channel.cancel(tag).catch(() => undefined)));
    await Promise.all([...this.inFlight]);
    if (channel) await channel.close().catch(() => undefined);
  }

  private track(work: Promise<void>): void {
    const settled = work.catch((err: unknown) => {
      // The channel went away under the handler; the broker redelivers what was not acked.
      this.logger.warn({ reason: (err as Error).message }, 'Message handling ended without an ack');
    });
    this.inFlight.add(settled);
    void settled.finally(() => this.inFlight.delete(settled));
  }

  /** One message: decode, claim, handle in a span, settle; one record of what became of it. */
  private onMessage(channel: ConfirmChannel, queue: QueueSpec, msg: ConsumeMessage): Promise<void> {
    const started = process.hrtime.bigint();
    const delivery = decode(msg);
    // Every record written while handling it names the request that caused the event.
    return withRequestId(delivery.requestId, () => this.process(channel, queue, msg, delivery, started));
  }

  private async process(channel: ConfirmChannel, queue: QueueSpec, msg: ConsumeMessage, delivery: Delivery, started: bigint): Promise<void> {
    const record = (outcome: string, extra: Record<string, unknown> = {}) => this.record(queue, msg, delivery, started, outcome, extra);
    if ('invalid' in delivery) {
      await this.deadLetter(channel, queue, msg, delivery.attempt, `invalid: ${delivery.invalid}`);
      return record('dead_lettered', { reason: 'invalid payload' });
    }

    const claim = await this.idempotency.claim(delivery.payload.eventId).catch((err: unknown) => err as Error);
    if (claim instanceof Error) {
      // Redis is down: leave the message to the broker and try again shortly.
      this.logger.warn({ reason: claim.message }, 'Idempotency store unavailable');
      await new Promise((r) => setTimeout(r, 500));
      return channel.nack(msg, false, true);
    }
    if (claim.status === 'done') {
      channel.ack(msg);
      return record('duplicate');
    }
    if (claim.status !== 'claimed') {
      // Another replica holds it (or crashed holding it): look again after the first delay.
      await this.republish(channel, queue.retries[0].name, msg, delivery.attempt);
      return record('deferred');
    }

    let outcome: string;
    try {
      outcome = await this.handleInSpan(delivery.type, delivery.payload);
    } catch (err) {
      await this.idempotency.release(delivery.payload.eventId, claim.token).catch(() => undefined);
      const reason = (err as Error).message;
      const step = nextStep({ permanent: isPermanent(err), reason }, delivery.attempt, queue.retries);
      if (step.action === 'dead_letter') {
        await this.deadLetter(channel, queue, msg, delivery.attempt, step.reason);
        return record('dead_lettered', { reason });
      }
      await this.republish(channel, step.queue, msg, step.attempt);
      return record('retry', { reason, retry_in_ms: step.delayMs });
    }
    // Done before the ack: a crash between the two costs a dropped duplicate, never a second send.
    await this.idempotency.markDone(delivery.payload.eventId);
    channel.ack(msg);
    record(outcome);
  }

  /** The handler, in a span of its own inside the consume span (and so the trace of the request that caused the event). */
  private handleInSpan(type: EventType, payload: EventPayload<EventType>): Promise<string> {
    const attributes = { 'messaging.message.id': payload.eventId, 'event.type': type };
    return trace.getTracer('notifier').startActiveSpan(`notifier handle ${type}`, { attributes }, async (span) => {
      try {
        const result = await handleEvent(this.deps, type, payload);
        span.setAttribute('event.outcome', result);
        return result;
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
        throw err;
      } finally {
        span.end();
      }
    });
  }

  private record(queue: QueueSpec, msg: ConsumeMessage, delivery: Delivery, started: bigint, outcome: string, extra: Record<string, unknown>): void {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.options.observe?.(isEventType(delivery.type) ? delivery.type : 'unknown', outcome, seconds);
    this.logger[outcome === 'dead_lettered' || outcome === 'retry' ? 'warn' : 'info'](
      {
        event_id: msg.properties.messageId,
        event_type: delivery.type,
        request_id: delivery.requestId,
        queue: queue.name,
        outcome,
        attempt: delivery.attempt,
        redelivered: msg.fields.redelivered,
        duration_ms: Math.round(seconds * 1e5) / 100,
        ...extra,
      },
      `event ${delivery.type} ${outcome}`,
    );
  }

  /** Copies the message to a queue (confirmed), then acks the original. */
  private async republish(channel: ConfirmChannel, target: string, msg: ConsumeMessage, attempt: number, extra: Record<string, string> = {}): Promise<void> {
    const properties: Options.Publish = {
      ...msg.properties,
      persistent: true,
      headers: { ...msg.properties.headers, [ATTEMPT_HEADER]: attempt, ...extra },
    };
    const connection = this.connection;
    await confirmWithin((done) => channel.sendToQueue(target, msg.content, properties, done), CONFIRM_TIMEOUT_MS, () => {
      // Not confirmed in time: the channel is given up with its connection, and the broker delivers
      // the message again (unacked) to the consumer of the new one.
      if (this.stopping || this.channel !== channel) return;
      this.logger.warn({ queue: target }, 'RabbitMQ did not confirm a publish in time; reconnecting');
      void connection?.close().catch(() => undefined);
    });
    channel.ack(msg);
  }

  private deadLetter(channel: ConfirmChannel, queue: QueueSpec, msg: ConsumeMessage, attempt: number, reason: string): Promise<void> {
    return this.republish(channel, queue.dead, msg, attempt, { [REASON_HEADER]: reason.slice(0, 500) });
  }
}

interface DeliveryHead {
  /** The event type as the message names it (routing key when the type property is missing). */
  type: string;
  /** 1 for the first delivery; the retry queues carry it in a header. */
  attempt: number;
  /** The request that caused the event: from its payload once read, else the publisher's header. */
  requestId?: string;
}
type Delivery = (DeliveryHead & { type: EventType; payload: EventPayload<EventType> }) | (DeliveryHead & { invalid: string });

/** Reads a message: its type, attempt and request id, and its payload validated against the event's schema. */
function decode(msg: ConsumeMessage): Delivery {
  const type = String(msg.properties.type ?? msg.fields.routingKey);
  const attempt = Number(msg.properties.headers?.[ATTEMPT_HEADER] ?? 1);
  const header = msg.properties.headers?.[InternalHeaders.requestId];
  const head = { type, attempt, requestId: typeof header === 'string' ? header : undefined };
  try {
    if (!isEventType(type)) throw new Error(`unknown event type ${type}`);
    const payload = parseEvent(type, JSON.parse(msg.content.toString('utf8')));
    return { ...head, type, payload, requestId: payload.requestId ?? head.requestId };
  } catch (err) {
    return { ...head, invalid: (err as Error).message };
  }
}
