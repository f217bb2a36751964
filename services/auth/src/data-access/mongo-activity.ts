// The accounts' activity history (MongoDB `activity`): one document per thing that happened to an
// account, newest first by its ObjectId (which orders by time). Bounded twice: a TTL index drops
// entries past the retention, and each account keeps at most `maxPerAccount`, trimmed on every
// write with one indexed read of the oldest entry still to keep.
import mongoose, { type Connection, type Model } from 'mongoose';
import type { AccountKind } from '@acct/shared';
import { modelOn } from '@acct/shared/mongo';
import type { ActivityEntry, ActivityFilter, ActivityLog, NewActivity } from '../domain/ports';

type ActivityDoc = Omit<ActivityEntry, 'id'> & { _id: mongoose.Types.ObjectId };

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
    },
    { versionKey: false },
  )
    // An account's history, and the deployment's log filtered by what or by whom, each newest first.
    .index({ kind: 1, accountId: 1, _id: -1 })
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
    await this.model.create({ ...entry, at: new Date() });
    // The oldest entry this account may keep; anything older goes.
    const limit = await this.model
      .find({ kind: entry.kind, accountId: entry.accountId }, { _id: 1 })
      .sort({ _id: -1 })
      .skip(this.options.maxPerAccount - 1)
      .limit(1)
      .lean<Array<{ _id: mongoose.Types.ObjectId }>>()
      .exec();
    if (limit.length) await this.model.deleteMany({ kind: entry.kind, accountId: entry.accountId, _id: { $lt: limit[0]._id } }).exec();
  }

  async list(filter: ActivityFilter): Promise<ActivityEntry[]> {
    const query: Record<string, unknown> = {};
    if (filter.kind) query.kind = filter.kind;
    if (filter.accountId) query.accountId = filter.accountId;
    if (filter.type) query.type = filter.type;
    if (filter.actorId) query['actor.id'] = filter.actorId;
    if (filter.before) query._id = { $lt: new mongoose.Types.ObjectId(filter.before) };
    const docs = await this.model.find(query).sort({ _id: -1 }).limit(filter.limit).lean<ActivityDoc[]>().exec();
    return docs.map(({ _id, ...doc }) => ({ id: _id.toHexString(), ...doc }));
  }

  async forget(kind: AccountKind, accountId: string, keep?: string): Promise<void> {
    await this.model.deleteMany({ kind, accountId, ...(keep ? { type: { $ne: keep } } : {}) }).exec();
  }
}
