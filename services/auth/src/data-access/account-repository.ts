// Admins and users in MongoDB: one collection per kind, unique lower-cased email, secrets never leave here unasked.
import mongoose, { type Connection, type Model, Types } from 'mongoose';
import { normalizeEmail, type AccountKind } from '@acct/shared';

export interface AccountDoc {
  _id: Types.ObjectId;
  email: string;
  name: string;
  passwordHash?: string | null;
  role: string;
  disabled: boolean;
  twoFactorEnabled: boolean;
  avatar?: { fileId: Types.ObjectId; contentType: string; size: number; updatedAt: Date } | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a client may see of an account. */
export interface AccountRecord {
  id: string;
  name: string;
  email: string;
  role: string;
  disabled: boolean;
  twoFactorEnabled?: boolean;
  avatar?: { contentType: string; size: number; updatedAt: string } | null;
  createdAt: string;
  updatedAt: string;
}

const accountSchema = new mongoose.Schema<AccountDoc>(
  {
    email: { type: String, required: true, unique: true },
    name: { type: String, required: true },
    passwordHash: { type: String, default: null },
    role: { type: String, required: true },
    disabled: { type: Boolean, default: false },
    twoFactorEnabled: { type: Boolean, default: false },
    avatar: {
      type: new mongoose.Schema({ fileId: mongoose.Schema.Types.ObjectId, contentType: String, size: Number, updatedAt: Date }, { _id: false }),
      default: null,
    },
  },
  { timestamps: true, versionKey: false },
);


export function toAccountRecord(kind: AccountKind, doc: AccountDoc): AccountRecord {
  const record: AccountRecord = {
    id: doc._id.toString(),
    name: doc.name,
    email: doc.email,
    role: doc.role,
    disabled: doc.disabled,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
  if (kind === 'admin') record.twoFactorEnabled = doc.twoFactorEnabled;
  if (doc.avatar) {
    record.avatar = { contentType: doc.avatar.contentType, size: doc.avatar.size, updatedAt: doc.avatar.updatedAt.toISOString() };
  }
  return record;
}

export class AccountRepository {
  private readonly model: Model<AccountDoc>;

  constructor(
    connection: Connection,
    readonly kind: AccountKind,
  ) {
    const name = kind === 'admin' ? 'Admin' : 'User';
    this.model = connection.models[name] ?? connection.model<AccountDoc>(name, accountSchema, kind === 'admin' ? 'admins' : 'users');
  }

  /** Builds the unique email index; safe to run at every start. */
  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  findByEmail(email: string): Promise<AccountDoc | null> {
    return this.model.findOne({ email: normalizeEmail(email) }).lean<AccountDoc>().exec();
  }

  findById(id: string): Promise<AccountDoc | null> {
    if (!Types.ObjectId.isValid(id)) return Promise.resolve(null);
    return this.model.findById(id).lean<AccountDoc>().exec();
  }

  /** Creates the account; a duplicate email throws a MongoServerError with code 11000. */
  async create(fields: { email: string; name: string; passwordHash: string | null; role: string; twoFactorEnabled?: boolean }): Promise<AccountDoc> {
    const created = await this.model.create({ ...fields, email: normalizeEmail(fields.email) });
    return created.toObject() as AccountDoc;
  }

  async update(id: string, fields: Partial<Pick<AccountDoc, 'email' | 'name' | 'passwordHash' | 'disabled' | 'avatar'>>): Promise<AccountDoc | null> {
    if (!Types.ObjectId.isValid(id)) return null;
    const set = { ...fields };
    if (set.email) set.email = normalizeEmail(set.email);
    return this.model.findByIdAndUpdate(id, { $set: set }, { new: true }).lean<AccountDoc>().exec();
  }

  /** Replaces the hash only if it is still the one we read, so a concurrent password change wins. */
  async upgradePasswordHash(id: Types.ObjectId, previous: string, next: string): Promise<void> {
    await this.model.updateOne({ _id: id, passwordHash: previous }, { $set: { passwordHash: next } }).exec();
  }
}

export const isDuplicateKey = (err: unknown) => (err as { code?: number } | null)?.code === 11000;
