// The event outbox (auth and desktop): events are written to MongoDB in the request that causes them
// and published to RabbitMQ with publisher confirms. An entry is written already leased to the
// replica that wrote it, which publishes it at once; the relay loop claims what is left (a failed
// publish backs off, a crashed replica's lease expires), so any number of replicas can relay and an
// event is lost by none. What grants access (a one-time code, a reset link), or is another service's
// (a push token), is stored only until the broker confirms it: the confirmed entry keeps its payload
// without those fields, and an entry whose secret has expired before it could be published is
// closed with them dropped, unsent.
import { randomUUID } from 'node:crypto';
import mongoose, { type Connection, type Model } from 'mongoose';
import { ROOT_CONTEXT, context, propagation } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { PollLoop } from '../poll-loop';
import { modelOn } from './connect';
import { LeasedQueue } from './leased-queue';
import { parseEvent, type EventInput, type EventOutbox, type EventType, type Publisher } from '../events';
import { secretEventFields } from '../secrets';

interface OutboxDoc {
  _id: string;
  type: EventType;
  payload: Record<string, unknown>;
  occurredAt: Date;
  status: 'pending' | 'published' | 'expired';
  attempts: number;
  leaseUntil: Date;
  publishedAt: Date | null;
  /** When the entry stopped being pending (published or expired); it is removed a week later. */
  closedAt: Date | null;
  lastError?: string;
  /** The trace context of the request that wrote it (W3C traceparent), so its publish continues that trace. */
  trace?: Record<string, string>;
}

const outboxSchema = new mongoose.Schema<OutboxDoc>(
  {
    _id: { type: String, required: true },
    type: { type: String, required: true },
    payload: { type: mongoose.Schema.Types.Mixed, required: true },
    occurredAt: { type: Date, required: true },
    status: { type: String, required: true, default: 'pending' },
    attempts: { type: Number, default: 0 },
    leaseUntil: { type: Date, required: true },
    publishedAt: { type: Date, default: null },
    closedAt: { type: Date, default: null },
    lastError: String,
    trace: { type: mongoose.Schema.Types.Mixed, default: undefined },
  },
  { versionKey: false },
);
outboxSchema.index({ status: 1, leaseUntil: 1 });
// Closed entries (secrets already dropped) are kept a week for inspection, then removed.
outboxSchema.index({ closedAt: 1 }, { expireAfterSeconds: 7 * 86_400 });

export class Outbox implements EventOutbox {
  private readonly model: Model<OutboxDoc>;
  private readonly queue: LeasedQueue<OutboxDoc>;
  private relay?: PollLoop;
  private publisher?: Publisher;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    connection: Connection,
    private readonly logger: Logger,
    private readonly options: { pollMs: number; leaseMs?: number; stopGraceMs?: number } = { pollMs: 1000 },
  ) {
    this.model = modelOn<OutboxDoc>(connection, 'OutboxEvent', outboxSchema, 'outbox');
    this.queue = new LeasedQueue(this.model, { leaseMs: options.leaseMs ?? 30_000, due: { status: 'pending' } });
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /**
   * Validates and stores an event, then publishes it without waiting (the caller waits for the
   * store only). Answers the event id.
   */
  async add<T extends EventType>(type: T, input: EventInput<T>): Promise<string> {
    const eventId = randomUUID();
    const occurredAt = new Date();
    const payload = parseEvent(type, { ...input, eventId, occurredAt: occurredAt.toISOString() });
    const publisher = this.relay?.active ? this.publisher : undefined;
    // Leased to this replica when it publishes at once, so no relay claims it meanwhile; claimable
    // at once otherwise.
    const leaseUntil = publisher ? this.queue.leaseEnd(occurredAt) : occurredAt;
    const trace: Record<string, string> = {};
    propagation.inject(context.active(), trace);
    const traced = Object.keys(trace).length ? { trace } : {};
    await this.model.create({ _id: eventId, type, payload, occurredAt, status: 'pending', attempts: publisher ? 1 : 0, leaseUntil, publishedAt: null, closedAt: null, ...traced });
    if (publisher) {
      const publishing = this.publishEntry(publisher, { _id: eventId, type, payload, attempts: 1, ...traced })
        .then(() => undefined)
        .finally(() => this.inFlight.delete(publishing));
      this.inFlight.add(publishing);
    } else {
      this.relay?.wake();
    }
    return eventId;
  }

  /** Publishes to `publisher` until stop(): new events at once, the rest by a relay loop that drains, then sleeps until the next poll. */
  start(publisher: Publisher): void {
    this.publisher = publisher;
    this.relay = new PollLoop(
      () => this.drain(publisher),
      (err) => this.logger.warn({ reason: err.message }, 'Outbox relay pass failed'),
      { pollMs: this.options.pollMs },
    );
    this.relay.start();
  }

  /** Publishes claimable entries one after the other; answers how many were published. */
  async drain(publisher: Publisher): Promise<number> {
    let published = 0;
    for (;;) {
      if (this.relay && !this.relay.active) return published;
      const now = new Date();
      const entry = await this.queue.claim(now);
      if (!entry) return published;
      if (secretExpired(entry, now)) {
        await this.close(entry, 'expired', now);
        this.logger.warn({ eventId: entry._id, type: entry.type, attempts: entry.attempts }, 'Event expired before it could be published; dropped its secret fields');
        continue;
      }
      if (!(await this.publishEntry(publisher, entry))) return published;
      published++;
    }
  }

  /** Publishes one leased entry and marks it published; on failure backs it off. Answers whether it went out. */
  private async publishEntry(publisher: Publisher, entry: Pick<OutboxDoc, '_id' | 'type' | 'payload' | 'attempts' | 'trace'>): Promise<boolean> {
    try {
      // In the trace of the request that wrote the event, whoever publishes it and whenever.
      const origin = entry.trace ? propagation.extract(ROOT_CONTEXT, entry.trace) : context.active();
      await context.with(origin, () => publisher.publish(entry.type, entry._id, entry.payload));
    } catch (err) {
      // Back off this entry; the lease keeps other relays from hammering the broker with it.
      this.logger.warn({ eventId: entry._id, type: entry.type, attempts: entry.attempts, reason: (err as Error).message }, 'Event publish failed; will retry');
      await this.queue
        .backOff(entry._id, entry.attempts, { lastError: (err as Error).message })
        // The store is down too: the lease runs out and a relay takes the entry again.
        .catch(() => undefined);
      return false;
    }
    // Published: a failure to record it only means it may be published again after the lease
    // (consumers drop duplicates by event id); its secrets then stay until that publish or expiry.
    await this.close(entry, 'published', new Date()).catch((err: Error) =>
      this.logger.warn({ eventId: entry._id, reason: err.message }, 'Could not mark an event published'),
    );
    return true;
  }

  /** Ends an entry's life as pending, dropping the fields that grant access. */
  private async close(entry: Pick<OutboxDoc, '_id' | 'type'>, status: 'published' | 'expired', at: Date): Promise<void> {
    const unset = Object.fromEntries((secretEventFields[entry.type] ?? []).map((field) => [`payload.${field}`, '']));
    const set = status === 'published' ? { status, publishedAt: at, closedAt: at } : { status, closedAt: at };
    await this.model.updateOne({ _id: entry._id }, Object.keys(unset).length ? { $set: set, $unset: unset } : { $set: set }).exec();
  }

  /**
   * Stops the relay after the publishes under way have finished, waiting at most `stopGraceMs`
   * for them (a broker that never confirms must not hold up a shutdown; the lease runs out and
   * another replica publishes what was left).
   */
  async stop(): Promise<void> {
    const relay = this.relay;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.stopGraceMs ?? 5_000)));
    await Promise.race([Promise.all([relay?.stop(), ...this.inFlight]), grace]);
    clearTimeout(timer);
  }

  /** The backlog, for metrics: pending entries and when the oldest occurred. */
  async pendingStats(): Promise<{ pending: number; oldestAt?: Date }> {
    const [pending, oldest] = await Promise.all([
      this.model.countDocuments({ status: 'pending' }).exec(),
      this.model.findOne({ status: 'pending' }, { occurredAt: 1 }).sort({ occurredAt: 1 }).lean<Pick<OutboxDoc, 'occurredAt'>>().exec(),
    ]);
    return { pending, oldestAt: oldest?.occurredAt };
  }
}

/** Whether an entry carries a secret whose validity (`payload.expiresAt`) has run out. */
function secretExpired(entry: Pick<OutboxDoc, 'type' | 'payload'>, now: Date): boolean {
  if (!secretEventFields[entry.type]) return false;
  const expiresAt = Date.parse(String(entry.payload.expiresAt));
  return Number.isFinite(expiresAt) && expiresAt <= now.getTime();
}
