// Second factors in MongoDB, one document per factor (`factors`): an account's authenticator, its
// set of recovery codes, and each passkey. `slot` is unique: one authenticator and one set of codes
// per account, and a passkey's credential id once in the whole service. Authenticator seeds are
// sealed (AES-256-GCM, bound to the account), recovery codes kept as keyed hashes; a passkey's public
// key is public. Every single-use rule is one conditional write: a code step or a recovery code that
// two requests present at once is accepted once.
import mongoose, { type Connection, type Model, Types } from 'mongoose';
import type { AccountKind } from '@acct/shared';
import { isDuplicateKey, modelOn } from '@acct/shared/mongo';
import type { FactorSet, Factors, NewPasskey, Passkey } from '../domain/shared/ports';

type FactorType = 'totp' | 'recovery' | 'passkey';

interface FactorDoc {
  _id: Types.ObjectId;
  slot: string;
  type: FactorType;
  kind: AccountKind;
  accountId: string;
  /** totp: the sealed seed; live once confirmed; the last time step accepted (a step is used once). */
  secret?: string;
  confirmed?: boolean;
  lastStep?: number;
  /** recovery: the unused codes' keyed hashes, and the used ones' (a copy of a used code is no guess). */
  codes?: string[];
  usedCodes?: string[];
  /** passkey */
  credentialId?: string;
  name?: string;
  publicKey?: string;
  counter?: number;
  transports?: string[];
  lastUsedAt?: Date | null;
  /** Signs in by itself no more until it answers a second step (domain/shared/mailbox.ts). */
  suspended?: boolean;
  createdAt: Date;
}

const factorSchema = new mongoose.Schema<FactorDoc>(
  {
    slot: { type: String, required: true, unique: true },
    type: { type: String, required: true },
    kind: { type: String, required: true },
    accountId: { type: String, required: true, index: true },
    secret: String,
    confirmed: Boolean,
    lastStep: Number,
    codes: [String],
    usedCodes: [String],
    credentialId: String,
    name: String,
    publicKey: String,
    counter: Number,
    transports: [String],
    lastUsedAt: Date,
    suspended: Boolean,
    createdAt: { type: Date, default: () => new Date() },
  },
  { versionKey: false },
);

const slots = {
  totp: (kind: AccountKind, accountId: string) => `totp:${kind}:${accountId}`,
  recovery: (kind: AccountKind, accountId: string) => `recovery:${kind}:${accountId}`,
  passkey: (credentialId: string) => `passkey:${credentialId}`,
};

/**
 * How the store keeps what it must not hold in the clear (security/secret-box.ts): seeds sealed and
 * bound to their slot, recovery codes as keyed hashes.
 */
export interface Sealer {
  seal(plain: string, boundTo: string): string;
  /** The plain value; throws when it was altered, sealed for something else, or under another key. */
  open(sealed: string, boundTo: string): string;
  hash(value: string): string;
}

export class MongoFactors implements Factors {
  private readonly model: Model<FactorDoc>;

  constructor(
    connection: Connection,
    private readonly box: Sealer,
  ) {
    this.model = modelOn<FactorDoc>(connection, 'Factor', factorSchema, 'factors');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  async of(kind: AccountKind, accountId: string): Promise<FactorSet> {
    const docs = await this.model.find({ kind, accountId }).lean<FactorDoc[]>().exec();
    const totp = docs.find((d) => d.type === 'totp');
    const recovery = docs.find((d) => d.type === 'recovery');
    return {
      totp: totp
        ? { secret: this.box.open(totp.secret!, totp.slot), confirmed: totp.confirmed === true, lastStep: totp.lastStep ?? -1, createdAt: totp.createdAt }
        : null,
      passkeys: docs.filter((d) => d.type === 'passkey').map(toPasskey),
      recoveryCodesLeft: recovery?.codes?.length ?? 0,
      recoveryCodesMadeAt: recovery?.createdAt ?? null,
    };
  }

  async startTotp(kind: AccountKind, accountId: string, secret: string): Promise<'started' | 'exists'> {
    const slot = slots.totp(kind, accountId);
    try {
      // Replaces an enrolment never confirmed; never a confirmed one.
      await this.model
        .updateOne(
          { slot, confirmed: false },
          { $set: { type: 'totp', kind, accountId, secret: this.box.seal(secret, slot), confirmed: false, lastStep: -1, createdAt: new Date() } },
          { upsert: true },
        )
        .exec();
      return 'started';
    } catch (err) {
      if (isDuplicateKey(err)) return 'exists';
      throw err;
    }
  }

  async confirmTotp(kind: AccountKind, accountId: string, step: number): Promise<boolean> {
    const result = await this.model.updateOne({ slot: slots.totp(kind, accountId), confirmed: false }, { $set: { confirmed: true, lastStep: step } }).exec();
    return result.modifiedCount === 1;
  }

  async useTotpStep(kind: AccountKind, accountId: string, step: number): Promise<boolean> {
    const result = await this.model.updateOne({ slot: slots.totp(kind, accountId), confirmed: true, lastStep: { $lt: step } }, { $set: { lastStep: step } }).exec();
    return result.modifiedCount === 1;
  }

  async removeTotp(kind: AccountKind, accountId: string): Promise<boolean> {
    const result = await this.model.deleteOne({ slot: slots.totp(kind, accountId), confirmed: true }).exec();
    return result.deletedCount === 1;
  }

  async addPasskey(kind: AccountKind, accountId: string, passkey: NewPasskey): Promise<'added' | 'exists'> {
    try {
      await this.model.create({ slot: slots.passkey(passkey.id), type: 'passkey', kind, accountId, credentialId: passkey.id, ...passkey, lastUsedAt: null });
      return 'added';
    } catch (err) {
      if (isDuplicateKey(err)) return 'exists';
      throw err;
    }
  }

  async findPasskey(credentialId: string): Promise<(Passkey & { kind: AccountKind; accountId: string }) | null> {
    const doc = await this.model.findOne({ slot: slots.passkey(credentialId) }).lean<FactorDoc>().exec();
    return doc ? { ...toPasskey(doc), kind: doc.kind, accountId: doc.accountId } : null;
  }

  async usePasskey(credentialId: string, counter: number, options: { keep?: boolean } = {}): Promise<void> {
    await this.model.updateOne({ slot: slots.passkey(credentialId) }, { $set: { counter, lastUsedAt: new Date() }, ...(options.keep ? { $unset: { suspended: 1 } } : {}) }).exec();
  }

  async suspendPasskeys(kind: AccountKind, accountId: string): Promise<Passkey[]> {
    const docs = await this.model.find({ type: 'passkey', kind, accountId, suspended: { $ne: true } }).lean<FactorDoc[]>().exec();
    if (docs.length) await this.model.updateMany({ _id: { $in: docs.map((d) => d._id) } }, { $set: { suspended: true } }).exec();
    return docs.map(toPasskey);
  }

  async removePasskey(kind: AccountKind, accountId: string, credentialId: string): Promise<boolean> {
    const result = await this.model.deleteOne({ slot: slots.passkey(credentialId), kind, accountId }).exec();
    return result.deletedCount === 1;
  }

  async replaceRecoveryCodes(kind: AccountKind, accountId: string, codes: string[]): Promise<void> {
    await this.model
      .updateOne(
        { slot: slots.recovery(kind, accountId) },
        { $set: { type: 'recovery', kind, accountId, codes: codes.map((c) => this.box.hash(c)), usedCodes: [], createdAt: new Date() } },
        { upsert: true },
      )
      .exec();
  }

  async useRecoveryCode(kind: AccountKind, accountId: string, code: string): Promise<number | 'used' | undefined> {
    const hash = this.box.hash(code);
    const slot = slots.recovery(kind, accountId);
    const doc = await this.model
      .findOneAndUpdate({ slot, codes: hash }, { $pull: { codes: hash }, $push: { usedCodes: hash } }, { new: true })
      .lean<FactorDoc>()
      .exec();
    if (doc) return doc.codes?.length ?? 0;
    return (await this.model.exists({ slot, usedCodes: hash }).exec()) ? 'used' : undefined;
  }

  async removeRecoveryCodes(kind: AccountKind, accountId: string): Promise<void> {
    await this.model.deleteOne({ slot: slots.recovery(kind, accountId) }).exec();
  }

  async removeAll(kind: AccountKind, accountId: string): Promise<number> {
    const result = await this.model.deleteMany({ kind, accountId, type: { $in: ['totp', 'passkey'] } }).exec();
    await this.removeRecoveryCodes(kind, accountId);
    return result.deletedCount;
  }
}

function toPasskey(doc: FactorDoc): Passkey {
  return {
    id: doc.credentialId!,
    name: doc.name ?? 'Passkey',
    publicKey: doc.publicKey!,
    counter: doc.counter ?? 0,
    transports: doc.transports ?? [],
    createdAt: doc.createdAt,
    lastUsedAt: doc.lastUsedAt ?? null,
    ...(doc.suspended ? { suspended: true } : {}),
  };
}
