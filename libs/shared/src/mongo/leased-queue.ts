// A MongoDB collection used as a queue of leased entries, the mechanism under the event outbox and
// the reset-request queue. Claiming an entry moves its lease ahead and counts an attempt in one
// atomic update, so any number of replicas can work one queue; an entry whose worker crashed is
// claimed again when its lease runs out; a failed entry backs off by moving its lease.
import type { FilterQuery, Model, UpdateQuery } from 'mongoose';

export interface LeasedEntry {
  leaseUntil: Date;
  attempts: number;
}

/** How long an entry that failed `attempts` times waits before it is claimed again: 2 s, 4 s, … up to a minute. */
export const backOffMs = (attempts: number): number => Math.min(60_000, 1000 * 2 ** Math.min(Math.max(attempts, 1), 6));

export class LeasedQueue<D extends LeasedEntry> {
  constructor(
    private readonly model: Model<D>,
    private readonly options: { leaseMs: number; due?: FilterQuery<D> },
  ) {}

  /** When a lease taken at `from` runs out. */
  leaseEnd(from: Date): Date {
    return new Date(from.getTime() + this.options.leaseMs);
  }

  /** Leases the entry that has been due longest (and matches `due`) to the caller; undefined when none is. */
  async claim(now = new Date()): Promise<D | undefined> {
    const filter = { ...this.options.due, leaseUntil: { $lte: now } } as FilterQuery<D>;
    const update = { $set: { leaseUntil: this.leaseEnd(now) }, $inc: { attempts: 1 } } as UpdateQuery<D>;
    const entry = await this.model.findOneAndUpdate(filter, update, { sort: { leaseUntil: 1 }, new: true }).lean<D>().exec();
    return entry ?? undefined;
  }

  /** Keeps a failed entry from every worker for its back-off, recording `set` beside it. */
  async backOff(id: unknown, attempts: number, set: Record<string, unknown> = {}): Promise<void> {
    const update = { $set: { ...set, leaseUntil: new Date(Date.now() + backOffMs(attempts)) } } as UpdateQuery<D>;
    await this.model.updateOne({ _id: id } as FilterQuery<D>, update).exec();
  }

  async remove(id: unknown): Promise<void> {
    await this.model.deleteOne({ _id: id } as FilterQuery<D>).exec();
  }
}
