// Accounts' identities at identity providers (MongoDB `identities`): a provider's subject belongs to
// one account (unique provider + subject), and an account has at most one identity per provider
// (unique kind + account + provider), both enforced by the indexes, so two racing links cannot both land.
import mongoose, { type Connection, type Model } from 'mongoose';
import type { AccountKind } from '@acct/shared';
import { isDuplicateKey, modelOn } from '@acct/shared/mongo';
import type { Identities, LinkedIdentity } from '../domain/shared/ports';

const identitySchema = new mongoose.Schema<LinkedIdentity>(
  {
    provider: { type: String, required: true },
    subject: { type: String, required: true },
    kind: { type: String, required: true },
    accountId: { type: String, required: true },
    email: String,
    linkedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
identitySchema.index({ provider: 1, subject: 1 }, { unique: true });
identitySchema.index({ kind: 1, accountId: 1, provider: 1 }, { unique: true });

const fields = { _id: 0, provider: 1, subject: 1, kind: 1, accountId: 1, email: 1, linkedAt: 1 };

export class MongoIdentities implements Identities {
  private readonly model: Model<LinkedIdentity>;

  constructor(connection: Connection) {
    this.model = modelOn<LinkedIdentity>(connection, 'Identity', identitySchema, 'identities');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  find(provider: string, subject: string): Promise<LinkedIdentity | null> {
    return this.model.findOne({ provider, subject }, fields).lean<LinkedIdentity>().exec();
  }

  listFor(kind: AccountKind, accountId: string): Promise<LinkedIdentity[]> {
    return this.model.find({ kind, accountId }, fields).sort({ linkedAt: 1 }).lean<LinkedIdentity[]>().exec();
  }

  async add(identity: LinkedIdentity): Promise<'added' | 'taken'> {
    try {
      await this.model.create(identity);
      return 'added';
    } catch (err) {
      if (isDuplicateKey(err)) return 'taken';
      throw err;
    }
  }

  async remove(kind: AccountKind, accountId: string, provider: string): Promise<boolean> {
    const { deletedCount } = await this.model.deleteOne({ kind, accountId, provider }).exec();
    return deletedCount === 1;
  }

  async removeAll(kind: AccountKind, accountId: string): Promise<number> {
    const { deletedCount } = await this.model.deleteMany({ kind, accountId }).exec();
    return deletedCount;
  }
}
