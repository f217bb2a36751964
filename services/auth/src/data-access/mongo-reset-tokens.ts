// Password reset tokens in MongoDB: only their SHA-256 is stored, with a TTL index and single use.
// An account has at most one live link: a new one retires the older, a reset retires them all.
import mongoose, { type Connection, type Model } from 'mongoose';
import type { AccountKind } from '@acct/shared';
import type { ResetTokens } from '../domain/email/ports';
import { sha256 } from './opaque-token';
import { modelOn } from '@acct/shared/mongo';

interface ResetTokenDoc {
  tokenHash: string;
  kind: AccountKind;
  accountId: string;
  expiresAt: Date;
  usedAt: Date | null;
  /** The account's credential epoch when the link was made: a credential change since retires it. */
  credentialEpoch?: number;
}

const resetTokenSchema = new mongoose.Schema<ResetTokenDoc>(
  {
    tokenHash: { type: String, required: true, unique: true },
    kind: { type: String, required: true },
    accountId: { type: String, required: true },
    credentialEpoch: Number,
    expiresAt: { type: Date, required: true, index: { expireAfterSeconds: 0 } },
    usedAt: { type: Date, default: null },
  },
  { versionKey: false, timestamps: { createdAt: true, updatedAt: false } },
);

export class MongoResetTokens implements ResetTokens {
  private readonly model: Model<ResetTokenDoc>;

  constructor(connection: Connection) {
    this.model = modelOn<ResetTokenDoc>(connection, 'ResetToken', resetTokenSchema, 'password_resets');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Stores a new link's token and retires every older, unused one of the account. */
  async store(token: string, kind: AccountKind, accountId: string, expiresAt: Date, credentialEpoch: number): Promise<void> {
    await this.retireAll(kind, accountId);
    await this.model.create({ tokenHash: sha256(token), kind, accountId, expiresAt, credentialEpoch });
  }

  /** The account of an unused, unexpired token of this kind, without using it up. */
  async find(token: string, kind: AccountKind, now = new Date()): Promise<string | undefined> {
    const doc = await this.model.findOne(live(token, kind, now)).lean<ResetTokenDoc>().exec();
    return doc?.accountId;
  }

  /** Marks the token used and answers its account and epoch, only if it is unused, unexpired and of this kind. */
  async consume(token: string, kind: AccountKind, now = new Date()): Promise<{ accountId: string; credentialEpoch?: number } | undefined> {
    const doc = await this.model.findOneAndUpdate(live(token, kind, now), { $set: { usedAt: now } }).lean<ResetTokenDoc>().exec();
    return doc ? { accountId: doc.accountId, ...(typeof doc.credentialEpoch === 'number' ? { credentialEpoch: doc.credentialEpoch } : {}) } : undefined;
  }

  /** Uses up every outstanding token of an account. */
  async retireAll(kind: AccountKind, accountId: string, now = new Date()): Promise<void> {
    await this.model.updateMany({ kind, accountId, usedAt: null }, { $set: { usedAt: now } }).exec();
  }
}

const live = (token: string, kind: AccountKind, now: Date) => ({ tokenHash: sha256(token), kind, usedAt: null, expiresAt: { $gt: now } });
