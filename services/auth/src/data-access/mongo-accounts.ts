// Admins and users in MongoDB: one collection per kind, unique normalised email. Answers domain
// accounts (string ids) and domain outcomes: a duplicate email is `email_taken`, not a driver error.
import mongoose, { type Connection, type Model, Types } from 'mongoose';
import { emailSkeleton, kindLabel, normalizeEmail, type AccountKind } from '@acct/shared';
import { isDuplicateKey, modelOn } from '@acct/shared/mongo';
import { isAccountId, type Account, type AccountChanges, type NewAccount } from '../domain/shared/account';
import type { Accounts } from '../domain/shared/ports';

interface AccountDoc {
  _id: Types.ObjectId;
  email: string;
  /** What lookalike addresses share (`emailSkeleton`): unique too, so `cаrol@` cannot sit beside `carol@`. */
  emailSkeleton?: string;
  name: string;
  passwordHash?: string | null;
  role: string;
  disabled: boolean;
  twoFactorEnabled: boolean;
  emailVerified?: boolean;
  addressProvenAt?: Date;
  /** The language its owner chose for the pages and mails (a tag such as `de`); absent, never chosen. */
  language?: string;
  avatar?: { fileId: Types.ObjectId; contentType: string; size: number; updatedAt: Date } | null;
  credentialEpoch?: number;
  createdAt: Date;
  updatedAt: Date;
}

const accountSchema = new mongoose.Schema<AccountDoc>(
  {
    email: { type: String, required: true, unique: true },
    // Sparse: accounts stored before the rule have none, and keep working.
    emailSkeleton: { type: String, unique: true, sparse: true },
    name: { type: String, required: true },
    passwordHash: { type: String, default: null },
    role: { type: String, required: true },
    disabled: { type: Boolean, default: false },
    twoFactorEnabled: { type: Boolean, default: false },
    // No default: absent means never asked, and counts as proven (turning verification on locks no one out).
    emailVerified: { type: Boolean, required: false },
    addressProvenAt: { type: Date, required: false },
    language: { type: String, required: false },
    avatar: {
      type: new mongoose.Schema({ fileId: mongoose.Schema.Types.ObjectId, contentType: String, size: Number, updatedAt: Date }, { _id: false }),
      default: null,
    },
    credentialEpoch: { type: Number, default: 0 },
  },
  { timestamps: true, versionKey: false },
);

export class MongoAccounts implements Accounts {
  private readonly model: Model<AccountDoc>;

  constructor(
    connection: Connection,
    readonly kind: AccountKind,
  ) {
    const name = kindLabel(kind);
    this.model = modelOn<AccountDoc>(connection, name, accountSchema, kind === 'admin' ? 'admins' : 'users');
  }

  /** Builds the unique email index; safe to run at every start. */
  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  async findByEmail(email: string): Promise<Account | null> {
    return toAccount(await this.model.findOne({ email: normalizeEmail(email) }).lean<AccountDoc>().exec());
  }

  async findById(id: string): Promise<Account | null> {
    if (!isAccountId(id)) return null;
    return toAccount(await this.model.findById(id).lean<AccountDoc>().exec());
  }

  async create(fields: NewAccount): Promise<Account | 'email_taken'> {
    try {
      const email = normalizeEmail(fields.email);
      const created = await this.model.create({ ...fields, email, emailSkeleton: emailSkeleton(email) });
      return toAccount(created.toObject() as AccountDoc)!;
    } catch (err) {
      if (isDuplicateKey(err)) return 'email_taken';
      throw err;
    }
  }

  async update(id: string, changes: AccountChanges, options: { ifEpoch?: number } = {}): Promise<Account | null | 'email_taken'> {
    if (!isAccountId(id)) return null;
    const { avatar, endSessions, ...rest } = changes;
    const set: Record<string, unknown> = { ...rest };
    if (rest.email) {
      set.email = normalizeEmail(rest.email);
      set.emailSkeleton = emailSkeleton(set.email as string);
    }
    if (avatar !== undefined) set.avatar = avatar && { ...avatar, fileId: new Types.ObjectId(avatar.fileId) };
    try {
      const update = endSessions ? { $set: set, $inc: { credentialEpoch: 1 } } : { $set: set };
      // Accounts made before epochs were kept have none: that is epoch 0.
      const epoch = options.ifEpoch === undefined ? {} : options.ifEpoch === 0 ? { credentialEpoch: { $in: [0, null] } } : { credentialEpoch: options.ifEpoch };
      return toAccount(await this.model.findOneAndUpdate({ _id: new Types.ObjectId(id), ...epoch }, update, { new: true }).lean<AccountDoc>().exec());
    } catch (err) {
      if (isDuplicateKey(err)) return 'email_taken';
      throw err;
    }
  }

  async list(options: { query?: string; after?: string; limit: number; emailVerified?: boolean; disabled?: boolean }): Promise<Account[]> {
    const filter: Record<string, unknown> = {};
    // Never asked counts as proven.
    if (options.emailVerified !== undefined) filter.emailVerified = options.emailVerified ? { $ne: false } : false;
    if (options.disabled !== undefined) filter.disabled = options.disabled ? true : { $ne: true };
    if (options.after) filter._id = { $gt: new Types.ObjectId(options.after) };
    if (options.query) {
      const pattern = options.query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      filter.$or = [{ email: { $regex: pattern, $options: 'i' } }, { name: { $regex: pattern, $options: 'i' } }];
    }
    const docs = await this.model.find(filter).sort({ _id: 1 }).limit(options.limit).lean<AccountDoc[]>().exec();
    return docs.map((doc) => toAccount(doc)!);
  }

  async remove(id: string): Promise<Account | null> {
    if (!isAccountId(id)) return null;
    return toAccount(await this.model.findByIdAndDelete(id).lean<AccountDoc>().exec());
  }

  countEnabled(): Promise<number> {
    return this.model.countDocuments({ disabled: { $ne: true } }).exec();
  }

  async upgradePasswordHash(id: string, previous: string, next: string): Promise<void> {
    await this.model.updateOne({ _id: new Types.ObjectId(id), passwordHash: previous }, { $set: { passwordHash: next } }).exec();
  }
}

function toAccount(doc: AccountDoc | null): Account | null {
  if (!doc) return null;
  return {
    id: doc._id.toString(),
    email: doc.email,
    name: doc.name,
    passwordHash: doc.passwordHash ?? null,
    role: doc.role,
    disabled: doc.disabled,
    twoFactorEnabled: doc.twoFactorEnabled,
    ...(doc.emailVerified !== undefined && doc.emailVerified !== null ? { emailVerified: doc.emailVerified } : {}),
    ...(doc.addressProvenAt ? { addressProvenAt: doc.addressProvenAt } : {}),
    ...(doc.language ? { language: doc.language } : {}),
    avatar: doc.avatar ? { ...doc.avatar, fileId: doc.avatar.fileId.toString() } : null,
    credentialEpoch: doc.credentialEpoch ?? 0,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}
