// Links mailed to prove an address (MongoDB `account_links`): verifying an email, confirming a new
// one, undoing a change from the old one. As reset links: 256 random bits in the link, only their
// SHA-256 stored, a TTL index, single use, and one live link per account and purpose (a new one
// retires the older). A link may carry the address it is about (`email`), so that a link issued for
// one address never acts on another.
import mongoose, { type Connection, type Model } from 'mongoose';
import type { AccountKind } from '@acct/shared';
import type { AccountLinks, LinkPurpose, UsedLink } from '../domain/ports';
import { sha256 } from './opaque-token';
import { modelOn } from '@acct/shared/mongo';

interface LinkDoc {
  tokenHash: string;
  purpose: LinkPurpose;
  kind: AccountKind;
  accountId: string;
  email?: string;
  expiresAt: Date;
  usedAt: Date | null;
}

const linkSchema = new mongoose.Schema<LinkDoc>(
  {
    tokenHash: { type: String, required: true, unique: true },
    purpose: { type: String, required: true },
    kind: { type: String, required: true },
    accountId: { type: String, required: true, index: true },
    email: String,
    expiresAt: { type: Date, required: true, index: { expireAfterSeconds: 0 } },
    usedAt: { type: Date, default: null },
  },
  { versionKey: false, timestamps: { createdAt: true, updatedAt: false } },
);

export class MongoAccountLinks implements AccountLinks {
  private readonly model: Model<LinkDoc>;

  constructor(connection: Connection) {
    this.model = modelOn<LinkDoc>(connection, 'AccountLink', linkSchema, 'account_links');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  async store(token: string, link: { purpose: LinkPurpose; kind: AccountKind; accountId: string; email?: string; expiresAt: Date }): Promise<void> {
    await this.retireAll(link.purpose, link.kind, link.accountId);
    await this.model.create({ tokenHash: sha256(token), ...link });
  }

  async consume(purpose: LinkPurpose, token: string, now = new Date()): Promise<UsedLink | undefined> {
    const doc = await this.model
      .findOneAndUpdate({ tokenHash: sha256(token), purpose, usedAt: null, expiresAt: { $gt: now } }, { $set: { usedAt: now } })
      .lean<LinkDoc>()
      .exec();
    return doc ? { kind: doc.kind, accountId: doc.accountId, email: doc.email } : undefined;
  }

  async retireAll(purpose: LinkPurpose | 'all', kind: AccountKind, accountId: string, now = new Date()): Promise<void> {
    await this.model.updateMany({ kind, accountId, usedAt: null, ...(purpose === 'all' ? {} : { purpose }) }, { $set: { usedAt: now } }).exec();
  }
}
