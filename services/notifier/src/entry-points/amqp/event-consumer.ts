// Consumes the notifier's queues with manual acks and a prefetch. Each message is validated, claimed
// (idempotency), handled, then acked; failures are retried through the delay queues with back-off
// and dead-lettered when permanent, invalid, or out of attempts. One log record per handled message.
import type { ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { isEventType, parseEvent, type EventType, type Logger } from '@acct/shared';
import { type AmqpClient } from '@acct/shared/amqp';
import type { IdempotencyStore } from '../../data-access/idempotency-store';
import { isPermanent } from '../../domain/delivery-errors';
import { handleEvent } from '../../domain/notifications';
import type { NotifierDeps } from '../../domain/ports';
import { declareTopology, type QueueSpec } from './topology';

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
      await channel.prefetch(this.options.prefetch);
      this.channel = channel;
      this.consumerTags = [];
      for (const queue of this.options.queues) {
        const { consumerTag } = await channel.consume(queue.name, (msg) => msg && this.track(this.onMessage(channel, queue, msg)), { noAck: false });
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

  private async onMessage(channel: ConfirmChannel, queue: QueueSpec, msg: ConsumeMessage): Promise<void> {
    const started = process.hrtime.bigint();
    const type = String(msg.properties.type ?? msg.fields.routingKey);
    const attempt = Number(msg.properties.headers?.[ATTEMPT_HEADER] ?? 1);
    // The request that caused the event: from its payload once it is read, else the publisher's header.
    let requestId = typeof msg.properties.headers?.['x-request-id'] === 'string' ? (msg.properties.headers['x-request-id'] as string) : undefined;
    const record = (outcome: string, extra: Record<string, unknown> = {}) => {
      this.options.observe?.(isEventType(type) ? type : 'unknown', outcome, Number(process.hrtime.bigint() - started) / 1e9);
      this.logger[outcome === 'dead_lettered' || outcome === 'retry' ? 'warn' : 'info'](
        {
          event_id: msg.properties.messageId,
          event_type: type,
          request_id: requestId,
          queue: queue.name,
          outcome,
          attempt,
          redelivered: msg.fields.redelivered,
          duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
          ...extra,
        },
        `event ${type} ${outcome}`,
      );
    };

    let payload: { eventId: string; requestId?: string } & Record<string, unknown>;
    try {
      if (!isEventType(type)) throw new Error(`unknown event type ${type}`);
      payload = parseEvent(type, JSON.parse(msg.content.toString('utf8')));
      requestId = payload.requestId ?? requestId;
    } catch (err) {
      await this.deadLetter(channel, queue, msg, `invalid: ${(err as Error).message}`);
      record('dead_lettered', { reason: 'invalid payload' });
      return;
    }

    let claim;
    try {
      claim = await this.idempotency.claim(payload.eventId);
    } catch (err) {
      // Redis is down: leave the message to the broker and try again shortly.
      this.logger.warn({ reason: (err as Error).message }, 'Idempotency store unavailable');
      await new Promise((r) => setTimeout(r, 500));
      channel.nack(msg, false, true);
      return;
    }
    if (claim.status !== 'claimed') {
      if (claim.status === 'done') {
        channel.ack(msg);
        record('duplicate');
        return;
      }
      // Another replica holds it (or crashed holding it): look again after the first delay.
      await this.republish(channel, queue.retries[0].name, msg, attempt);
      record('deferred');
      return;
    }
    const token = claim.token;

    let outcome;
    try {
      // A span of its own, inside the consume span (and so the trace of the request that caused the event).
      outcome = await trace.getTracer('notifier').startActiveSpan(`notifier handle ${type}`, { attributes: { 'messaging.message.id': payload.eventId, 'event.type': type } }, async (span) => {
        try {
          const result = await handleEvent(this.deps, type as EventType, payload as never);
          span.setAttribute('event.outcome', result);
          return result;
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
          throw err;
        } finally {
          span.end();
        }
      });
    } catch (err) {
      await this.idempotency.release(payload.eventId, token).catch(() => undefined);
      const reason = (err as Error).message;
      if (isPermanent(err) || attempt > queue.retries.length) {
        await this.deadLetter(channel, queue, msg, isPermanent(err) ? `permanent: ${reason}` : `attempts exhausted: ${reason}`);
        record('dead_lettered', { reason });
      } else {
        await this.republish(channel, queue.retries[attempt - 1].name, msg, attempt + 1);
        record('retry', { reason, retry_in_ms: queue.retries[attempt - 1].delayMs });
      }
      return;
    }
    // Done before the ack: a crash between the two costs a dropped duplicate, never a second send.
    await this.idempotency.markDone(payload.eventId);
    channel.ack(msg);
    record(outcome);
  }

  /** Copies the message to a queue (confirmed), then acks the original. */
  private async republish(channel: ConfirmChannel, target: string, msg: ConsumeMessage, attempt: number, extra: Record<string, string> = {}): Promise<void> {
    const properties: Options.Publish = {
      ...msg.properties,
      persistent: true,
      headers: { ...msg.properties.headers, [ATTEMPT_HEADER]: attempt, ...extra },
    };
    await new Promise<void>((resolve, reject) =>
      channel.sendToQueue(target, msg.content, properties, (err) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve())),
    );
    channel.ack(msg);
  }

  private deadLetter(channel: ConfirmChannel, queue: QueueSpec, msg: ConsumeMessage, reason: string): Promise<void> {
    const attempt = Number(msg.properties.headers?.[ATTEMPT_HEADER] ?? 1);
    return this.republish(channel, queue.dead, msg, attempt, { [REASON_HEADER]: reason.slice(0, 500) });
  }
}
