// The event outbox (auth and desktop): events are written to MongoDB in the request that causes them, and a relay
// publishes them to RabbitMQ with publisher confirms. Entries are claimed with a lease, so any
// number of auth replicas can relay, and a crashed claimant's entries are picked up again.
import { randomUUID } from 'node:crypto';
import mongoose, { type Connection, type Model } from 'mongoose';
import type { Logger } from 'pino';
import { parseEvent, type EventPayload, type EventType } from './events';

interface OutboxDoc {
  _id: string;
  type: EventType;
  payload: Record<string, unknown>;
  occurredAt: Date;
  status: 'pending' | 'published';
  attempts: number;
  leaseUntil: Date;
  publishedAt: Date | null;
  lastError?: string;
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
    lastError: String,
  },
  { versionKey: false },
);
outboxSchema.index({ status: 1, leaseUntil: 1 });
// Published entries are kept a week for inspection, then removed.
outboxSchema.index({ publishedAt: 1 }, { expireAfterSeconds: 7 * 86_400 });

export type EventInput<T extends EventType> = Omit<EventPayload<T>, 'eventId' | 'occurredAt'>;

export interface Publisher {
  /** Resolves once the broker confirmed the message. */
  publish(type: EventType, eventId: string, payload: Record<string, unknown>): Promise<void>;
}

export class Outbox {
  private readonly model: Model<OutboxDoc>;
  private running?: Promise<void>;
  private stopped = true;
  private wake?: () => void;
  private kicked = false;

  constructor(
    connection: Connection,
    private readonly logger: Logger,
    private readonly options: { pollMs: number; leaseMs?: number } = { pollMs: 1000 },
  ) {
    this.model = connection.models.OutboxEvent ?? connection.model<OutboxDoc>('OutboxEvent', outboxSchema, 'outbox');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Validates and stores an event; the relay publishes it soon after. Answers the event id. */
  async add<T extends EventType>(type: T, input: EventInput<T>): Promise<string> {
    const eventId = randomUUID();
    const occurredAt = new Date();
    const payload = parseEvent(type, { ...input, eventId, occurredAt: occurredAt.toISOString() });
    await this.model.create({ _id: eventId, type, payload, occurredAt, status: 'pending', attempts: 0, leaseUntil: occurredAt, publishedAt: null });
    this.kick();
    return eventId;
  }

  /** Starts relaying to `publisher` until stop(): drains, then sleeps until the next add or poll. */
  start(publisher: Publisher): void {
    this.stopped = false;
    this.running = (async () => {
      while (!this.stopped) {
        try {
          await this.drain(publisher);
        } catch (err) {
          this.logger.warn({ reason: (err as Error).message }, 'Outbox relay pass failed');
        }
        if (this.stopped) break;
        if (this.kicked) {
          this.kicked = false;
          continue;
        }
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            this.wake = undefined;
            resolve();
          };
          const timer = setTimeout(done, this.options.pollMs);
          this.wake = done;
        });
      }
    })();
  }

  /** Publishes claimable entries one after the other; answers how many were published. */
  async drain(publisher: Publisher): Promise<number> {
    let published = 0;
    for (;;) {
      if (this.stopped) return published;
      const now = new Date();
      const entry = await this.model
        .findOneAndUpdate(
          { status: 'pending', leaseUntil: { $lte: now } },
          { $set: { leaseUntil: new Date(now.getTime() + (this.options.leaseMs ?? 30_000)) }, $inc: { attempts: 1 } },
          { sort: { leaseUntil: 1 }, new: true },
        )
        .lean<OutboxDoc>()
        .exec();
      if (!entry) return published;
      try {
        await publisher.publish(entry.type, entry._id, entry.payload);
        await this.model.updateOne({ _id: entry._id }, { $set: { status: 'published', publishedAt: new Date() } }).exec();
        published++;
      } catch (err) {
        // Back off this entry; the lease keeps other relays from hammering the broker with it.
        const retryAt = new Date(Date.now() + Math.min(60_000, 1000 * 2 ** Math.min(entry.attempts, 6)));
        await this.model.updateOne({ _id: entry._id }, { $set: { leaseUntil: retryAt, lastError: (err as Error).message } }).exec();
        this.logger.warn({ eventId: entry._id, type: entry.type, attempts: entry.attempts, reason: (err as Error).message }, 'Event publish failed; will retry');
        return published;
      }
    }
  }

  private kick(): void {
    if (this.wake) this.wake();
    else this.kicked = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  async pendingCount(): Promise<number> {
    return this.model.countDocuments({ status: 'pending' }).exec();
  }
}
