// Password reset tokens in MongoDB: only their SHA-256 is stored, with a TTL index and single use.
import mongoose, { type Connection, type Model } from 'mongoose';
import type { AccountKind } from '@acct/shared';
import { sha256 } from './opaque-token';

interface ResetTokenDoc {
  tokenHash: string;
  kind: AccountKind;
  accountId: string;
  expiresAt: Date;
  usedAt: Date | null;
}

const resetTokenSchema = new mongoose.Schema<ResetTokenDoc>(
  {
    tokenHash: { type: String, required: true, unique: true },
    kind: { type: String, required: true },
    accountId: { type: String, required: true },
    expiresAt: { type: Date, required: true, index: { expireAfterSeconds: 0 } },
    usedAt: { type: Date, default: null },
  },
  { versionKey: false, timestamps: { createdAt: true, updatedAt: false } },
);

export class ResetTokenRepository {
  private readonly model: Model<ResetTokenDoc>;

  constructor(connection: Connection) {
    this.model = connection.models.ResetToken ?? connection.model<ResetTokenDoc>('ResetToken', resetTokenSchema, 'password_resets');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  async store(token: string, kind: AccountKind, accountId: string, expiresAt: Date): Promise<void> {
    await this.model.create({ tokenHash: sha256(token), kind, accountId, expiresAt });
  }

  /** Marks the token used and answers its account, only if it is unused, unexpired and of this kind. */
  async consume(token: string, kind: AccountKind, now = new Date()): Promise<string | undefined> {
    const doc = await this.model
      .findOneAndUpdate({ tokenHash: sha256(token), kind, usedAt: null, expiresAt: { $gt: now } }, { $set: { usedAt: now } })
      .lean<ResetTokenDoc>()
      .exec();
    return doc?.accountId;
  }
}
