// The accounts' activity history (MongoDB `activity`): one document per thing that happened to an
// account, newest first by its ObjectId (which orders by time). Bounded twice: a TTL index drops
// entries past the retention, and each account keeps at most `maxPerAccount` security entries and
// as many cosmetic ones (a name, a picture), each kind trimmed on every write of its own kind with
// one indexed read of the oldest entry still to keep, so no number of cosmetic writes pushes a
// sign-in out. A cosmetic entry repeated (same type, details and actor) replaces the one before it,
// with a count and the first time.
import mongoose, { type Connection, type Model } from 'mongoose';
import type { AccountKind } from '@acct/shared';
import { modelOn } from '@acct/shared/mongo';
import type { ActivityEntry, ActivityFilter, ActivityLog, NewActivity } from '../domain/shared/ports';

type ActivityDoc = Omit<ActivityEntry, 'id'> & { _id: mongoose.Types.ObjectId; cosmetic?: boolean };

const activitySchema = (retentionSeconds: number) =>
  new mongoose.Schema<ActivityDoc>(
    {
      kind: { type: String, required: true },
      accountId: { type: String, required: true },
      type: { type: String, required: true },
      at: { type: Date, required: true, index: { expireAfterSeconds: retentionSeconds } },
      ip: String,
      userAgent: String,
      actor: { type: new mongoose.Schema({ kind: String, id: String }, { _id: false }), default: undefined },
      details: { type: [String], default: undefined },
      cosmetic: { type: Boolean, default: undefined },
      repeated: Number,
      firstAt: Date,
    },
    { versionKey: false },
  )
    // An account's history, and the deployment's log filtered by what or by whom, each newest first.
    .index({ kind: 1, accountId: 1, _id: -1 })
    .index({ kind: 1, accountId: 1, cosmetic: 1, _id: -1 })
    .index({ type: 1, _id: -1 })
    .index({ 'actor.id': 1, _id: -1 });

export class MongoActivityLog implements ActivityLog {
  private readonly model: Model<ActivityDoc>;

  constructor(
    connection: Connection,
    private readonly options: { retentionDays: number; maxPerAccount: number },
  ) {
    this.model = modelOn<ActivityDoc>(connection, 'Activity', activitySchema(options.retentionDays * 86_400), 'activity');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  async record(entry: NewActivity): Promise<void> {
    const { cosmetic, ...fields } = entry;
    const at = new Date();
    const account = { kind: entry.kind, accountId: entry.accountId };
    if (cosmetic) {
      // The same change again: it replaces its last record, counted, and moves to the top.
      const same = { ...account, cosmetic: true, type: entry.type, details: entry.details ?? { $exists: false }, 'actor.id': entry.actor?.id ?? { $exists: false } };
      const previous = await this.model.findOneAndDelete(same, { sort: { _id: -1 } }).lean<ActivityDoc>().exec();
      const repeated = previous ? { repeated: (previous.repeated ?? 1) + 1, firstAt: previous.firstAt ?? previous.at } : {};
      await this.model.create({ ...fields, cosmetic: true, at, ...repeated });
    } else {
      await this.model.create({ ...fields, at });
    }
    // The oldest entry of this kind the account may keep; anything of its kind older goes.
    const tier = cosmetic ? { ...account, cosmetic: true } : { ...account, cosmetic: { $ne: true } };
    const limit = await this.model.find(tier, { _id: 1 }).sort({ _id: -1 }).skip(this.options.maxPerAccount - 1).limit(1).lean<Array<{ _id: mongoose.Types.ObjectId }>>().exec();
    if (limit.length) await this.model.deleteMany({ ...tier, _id: { $lt: limit[0]._id } }).exec();
  }

  async list(filter: ActivityFilter): Promise<ActivityEntry[]> {
    const query: Record<string, unknown> = {};
    if (filter.kind) query.kind = filter.kind;
    if (filter.accountId) query.accountId = filter.accountId;
    if (filter.type) query.type = filter.type;
    if (filter.actorId) query['actor.id'] = filter.actorId;
    if (filter.before) query._id = { $lt: new mongoose.Types.ObjectId(filter.before) };
    const docs = await this.model.find(query).sort({ _id: -1 }).limit(filter.limit).lean<ActivityDoc[]>().exec();
    return docs.map(({ _id, cosmetic: _cosmetic, ...doc }) => ({ id: _id.toHexString(), ...doc }));
  }

  async forget(kind: AccountKind, accountId: string, keep?: string): Promise<void> {
    await this.model.deleteMany({ kind, accountId, ...(keep ? { type: { $ne: keep } } : {}) }).exec();
  }
}
