// Pending factor recoveries (MongoDB `factor_recoveries`): one document per account while a removal
// its mailbox asked for waits out its delay. The reminder and the removal are each claimed with one
// conditional update, so with N replicas each happens once; a cancelled or finished recovery is gone.
import mongoose, { type Connection, type Model } from 'mongoose';
import type { AccountKind } from '@acct/shared';
import { isDuplicateKey, modelOn } from '@acct/shared/mongo';
import type { FactorRecoveries, PendingRecovery } from '../domain/shared/ports';

interface RecoveryDoc extends PendingRecovery {
  remindedAt: Date | null;
}

const recoverySchema = new mongoose.Schema<RecoveryDoc>(
  {
    kind: { type: String, required: true },
    accountId: { type: String, required: true },
    requestedAt: { type: Date, required: true },
    dueAt: { type: Date, required: true, index: true },
    remindAt: { type: Date, required: true, index: true },
    remindedAt: { type: Date, default: null },
  },
  { versionKey: false },
);
recoverySchema.index({ kind: 1, accountId: 1 }, { unique: true });

const plain = (doc: RecoveryDoc): PendingRecovery => ({ kind: doc.kind, accountId: doc.accountId, requestedAt: doc.requestedAt, dueAt: doc.dueAt, remindAt: doc.remindAt });

export class MongoFactorRecoveries implements FactorRecoveries {
  private readonly model: Model<RecoveryDoc>;

  constructor(connection: Connection) {
    this.model = modelOn<RecoveryDoc>(connection, 'FactorRecovery', recoverySchema, 'factor_recoveries');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  async schedule(recovery: PendingRecovery): Promise<{ scheduled: boolean; recovery: PendingRecovery }> {
    try {
      await this.model.create({ ...recovery, remindedAt: null });
      return { scheduled: true, recovery };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const pending = await this.pendingFor(recovery.kind, recovery.accountId);
      // Gone between the two (cancelled or run): this one is the account's now.
      if (!pending) return this.schedule(recovery);
      return { scheduled: false, recovery: pending };
    }
  }

  async pendingFor(kind: AccountKind, accountId: string): Promise<PendingRecovery | undefined> {
    const doc = await this.model.findOne({ kind, accountId }).lean<RecoveryDoc>().exec();
    return doc ? plain(doc) : undefined;
  }

  async cancel(kind: AccountKind, accountId: string): Promise<boolean> {
    const { deletedCount } = await this.model.deleteOne({ kind, accountId }).exec();
    return deletedCount > 0;
  }

  async claimReminder(now: Date): Promise<PendingRecovery | undefined> {
    const doc = await this.model
      .findOneAndUpdate({ remindedAt: null, remindAt: { $lte: now }, dueAt: { $gt: now } }, { $set: { remindedAt: now } })
      .lean<RecoveryDoc>()
      .exec();
    return doc ? plain(doc) : undefined;
  }

  async claimDue(now: Date): Promise<PendingRecovery | undefined> {
    const doc = await this.model.findOneAndDelete({ dueAt: { $lte: now } }).lean<RecoveryDoc>().exec();
    return doc ? plain(doc) : undefined;
  }
}
