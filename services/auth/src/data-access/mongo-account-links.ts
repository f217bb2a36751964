// Links mailed to prove an address (MongoDB `account_links`): verifying an email, confirming a new
// one, undoing a change from the old one. As reset links: 256 random bits in the link, only their
// SHA-256 stored, a TTL index, single use, and one live link per account and purpose (a new one
// retires the older), except undo links: each change's undo lives its whole week whatever comes
// after, so that the owner of an address the account had can always bring it back. A link may carry
// the address it is about (`email`), so that a link issued for one address never acts on another,
// and the credential epoch it was issued under.
import mongoose, { type Connection, type Model } from 'mongoose';
import type { AccountKind } from '@acct/shared';
import type { AccountLinks, LinkPurpose, NewLink, UsedLink } from '../domain/email/ports';
import { sha256 } from './opaque-token';
import { modelOn } from '@acct/shared/mongo';

interface LinkDoc {
  tokenHash: string;
  purpose: LinkPurpose;
  kind: AccountKind;
  accountId: string;
  email?: string;
  credentialEpoch?: number;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

const linkSchema = new mongoose.Schema<LinkDoc>(
  {
    tokenHash: { type: String, required: true, unique: true },
    purpose: { type: String, required: true },
    kind: { type: String, required: true },
    accountId: { type: String, required: true, index: true },
    email: { type: String, index: true },
    credentialEpoch: Number,
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

  async store(token: string, link: NewLink): Promise<void> {
    if (link.purpose !== 'undo_email_change') await this.retireAll(link.purpose, link.kind, link.accountId);
    await this.model.create({ tokenHash: sha256(token), ...link });
  }

  async consume(purpose: LinkPurpose, token: string, now = new Date()): Promise<UsedLink | undefined> {
    const doc = await this.model
      .findOneAndUpdate({ tokenHash: sha256(token), purpose, usedAt: null, expiresAt: { $gt: now } }, { $set: { usedAt: now } })
      .lean<LinkDoc>()
      .exec();
    if (!doc) return undefined;
    return { kind: doc.kind, accountId: doc.accountId, email: doc.email, createdAt: doc.createdAt, ...(typeof doc.credentialEpoch === 'number' ? { credentialEpoch: doc.credentialEpoch } : {}) };
  }

  async retireAll(purpose: LinkPurpose | 'all', kind: AccountKind, accountId: string, options: { after?: Date } = {}): Promise<void> {
    const filter = { kind, accountId, usedAt: null, ...(purpose === 'all' ? {} : { purpose }), ...(options.after ? { createdAt: { $gt: options.after } } : {}) };
    await this.model.updateMany(filter, { $set: { usedAt: new Date() } }).exec();
  }

  async heldFor(kind: AccountKind, email: string, now = new Date()): Promise<string | undefined> {
    const doc = await this.model.findOne({ purpose: 'undo_email_change', kind, email, usedAt: null, expiresAt: { $gt: now } }).lean<LinkDoc>().exec();
    return doc?.accountId;
  }
}
