// Second factors in MongoDB, one document per factor (`factors`), whatever its method: the store
// seals a factor's secret (AES-256-GCM, bound to its slot), keeps its single-use codes as keyed hashes
// and knows no method. `slot` is unique: a factor the account holds once (its id is its method's name)
// once per account, any other (a passkey's credential id) once in the whole service. Every single-use
// rule is one conditional write: a time step or a code that two requests present at once is accepted once.
import mongoose, { type Connection, type Model, Types } from 'mongoose';
import type { AccountKind } from '@acct/shared';
import { isDuplicateKey, modelOn } from '@acct/shared/mongo';
import type { Factor, FactorRef, Factors, NewFactor, SecondFactor } from '../domain/shared/ports';

interface FactorDoc {
  _id: Types.ObjectId;
  slot: string;
  /** The method, under the names documents have always had (`recovery` for `recovery_code`). */
  type: string;
  kind: AccountKind;
  accountId: string;
  name?: string;
  /** The sealed secret. */
  secret?: string;
  /** False while it waits for its first proof; absent on the factors that never wait. */
  confirmed?: boolean;
  /** The counter a use moves on: an authenticator's documents call it `lastStep`. */
  lastStep?: number;
  counter?: number;
  /** The unused codes' keyed hashes, and the used ones' (a copy of a used code is no guess). */
  codes?: string[];
  usedCodes?: string[];
  /** Details in the clear: a passkey's as the fields they always were, any other method's in `details`. */
  credentialId?: string;
  publicKey?: string;
  transports?: string[];
  details?: Record<string, unknown>;
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
    name: String,
    secret: String,
    confirmed: Boolean,
    lastStep: Number,
    counter: Number,
    codes: { type: [String], default: undefined },
    usedCodes: { type: [String], default: undefined },
    credentialId: String,
    publicKey: String,
    transports: { type: [String], default: undefined },
    details: mongoose.Schema.Types.Mixed,
    lastUsedAt: Date,
    suspended: Boolean,
    createdAt: { type: Date, default: () => new Date() },
  },
  { versionKey: false },
);

/**
 * The names documents written before the store knew no method keep, so that they read as they are
 * and a replica still running the code before it reads what this one writes.
 */
const TYPE_OF: Partial<Record<SecondFactor, string>> = { recovery_code: 'recovery' };
const METHOD_OF: Record<string, SecondFactor> = { recovery: 'recovery_code' };
const COUNTER_FIELD: Partial<Record<SecondFactor, 'lastStep'>> = { totp: 'lastStep' };

const typeOf = (method: SecondFactor) => TYPE_OF[method] ?? method;
const counterField = (method: SecondFactor) => COUNTER_FIELD[method] ?? 'counter';
const slotOf = (kind: AccountKind, accountId: string, method: SecondFactor, id: string) =>
  id === method ? `${typeOf(method)}:${kind}:${accountId}` : `${typeOf(method)}:${id}`;
/** A factor that never waits for a first proof has no `confirmed` field: live is "not false". */
const LIVE = { confirmed: { $ne: false } };

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

  async list(kind: AccountKind, accountId: string): Promise<Factor[]> {
    const docs = await this.model.find({ kind, accountId }).sort({ createdAt: 1, _id: 1 }).lean<FactorDoc[]>().exec();
    return docs.map((doc) => this.toFactor(doc));
  }

  async find(method: SecondFactor, id: string): Promise<Factor | null> {
    const doc = await this.model.findOne({ slot: `${typeOf(method)}:${id}` }).lean<FactorDoc>().exec();
    return doc ? this.toFactor(doc) : null;
  }

  async add(kind: AccountKind, accountId: string, factor: NewFactor, replace?: 'unconfirmed' | 'any'): Promise<'added' | 'exists'> {
    const slot = slotOf(kind, accountId, factor.method, factor.id);
    // A passkey's public key and transports are fields of their own, as they always were; other details go in `details`.
    const { publicKey, transports, ...details } = factor.details ?? {};
    const fields = {
      type: typeOf(factor.method),
      kind,
      accountId,
      name: factor.name,
      secret: factor.secret === undefined ? undefined : this.box.seal(factor.secret, slot),
      // Only a factor that waits for a first proof says so; the others stay as they were always stored.
      confirmed: factor.confirmed ? undefined : false,
      [counterField(factor.method)]: factor.counter ?? -1,
      codes: factor.codes?.map((c) => this.box.hash(c)),
      usedCodes: factor.codes ? [] : undefined,
      credentialId: factor.id === factor.method ? undefined : factor.id,
      publicKey: publicKey as string | undefined,
      transports: transports as string[] | undefined,
      details: Object.keys(details).length ? details : undefined,
      lastUsedAt: null,
      createdAt: new Date(),
    };
    const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    const unset = Object.fromEntries(Object.entries(fields).filter(([, v]) => v === undefined).map(([k]) => [k, 1]));
    try {
      if (!replace) await this.model.create({ slot, ...set });
      // Replacing an enrolment never confirmed matches no live factor: the upsert then collides with it.
      else await this.model.updateOne(replace === 'unconfirmed' ? { slot, confirmed: false } : { slot }, { $set: set, $unset: { ...unset, suspended: 1 } }, { upsert: true }).exec();
      return 'added';
    } catch (err) {
      if (isDuplicateKey(err)) return 'exists';
      throw err;
    }
  }

  async confirm(kind: AccountKind, accountId: string, { method, id }: FactorRef, counter: number): Promise<boolean> {
    const result = await this.model
      .updateOne({ slot: slotOf(kind, accountId, method, id), kind, accountId, confirmed: false }, { $set: { confirmed: true, [counterField(method)]: counter, lastUsedAt: new Date() } })
      .exec();
    return result.modifiedCount === 1;
  }

  async use(kind: AccountKind, accountId: string, { method, id }: FactorRef, counter: number, options: { strictly?: boolean; keep?: boolean } = {}): Promise<boolean> {
    const field = counterField(method);
    const result = await this.model
      .updateOne(
        { slot: slotOf(kind, accountId, method, id), kind, accountId, ...LIVE, ...(options.strictly ? { [field]: { $lt: counter } } : {}) },
        { $set: { [field]: counter, lastUsedAt: new Date() }, ...(options.keep ? { $unset: { suspended: 1 } } : {}) },
      )
      .exec();
    return result.matchedCount === 1;
  }

  async spend(kind: AccountKind, accountId: string, { method, id }: FactorRef, code: string): Promise<number | 'used' | undefined> {
    const hash = this.box.hash(code);
    const slot = slotOf(kind, accountId, method, id);
    const doc = await this.model
      .findOneAndUpdate({ slot, kind, accountId, codes: hash }, { $pull: { codes: hash }, $push: { usedCodes: hash }, $set: { lastUsedAt: new Date() } }, { new: true })
      .lean<FactorDoc>()
      .exec();
    if (doc) return doc.codes?.length ?? 0;
    return (await this.model.exists({ slot, usedCodes: hash }).exec()) ? 'used' : undefined;
  }

  async remove(kind: AccountKind, accountId: string, { method, id }: FactorRef): Promise<boolean> {
    const result = await this.model.deleteOne({ slot: slotOf(kind, accountId, method, id), kind, accountId }).exec();
    return result.deletedCount === 1;
  }

  async suspend(kind: AccountKind, accountId: string, methods: readonly SecondFactor[]): Promise<Factor[]> {
    const docs = await this.model
      .find({ type: { $in: methods.map(typeOf) }, kind, accountId, suspended: { $ne: true } })
      .sort({ createdAt: 1, _id: 1 })
      .lean<FactorDoc[]>()
      .exec();
    if (docs.length) await this.model.updateMany({ _id: { $in: docs.map((d) => d._id) } }, { $set: { suspended: true } }).exec();
    return docs.map((doc) => this.toFactor({ ...doc, suspended: true }));
  }

  async removeAll(kind: AccountKind, accountId: string): Promise<Factor[]> {
    const docs = await this.model.find({ kind, accountId }).lean<FactorDoc[]>().exec();
    if (docs.length) await this.model.deleteMany({ _id: { $in: docs.map((d) => d._id) } }).exec();
    return docs.map((doc) => this.toFactor(doc));
  }

  private toFactor(doc: FactorDoc): Factor {
    const method = METHOD_OF[doc.type] ?? (doc.type as SecondFactor);
    return {
      id: doc.credentialId ?? method,
      method,
      kind: doc.kind,
      accountId: doc.accountId,
      ...(doc.name !== undefined ? { name: doc.name } : {}),
      createdAt: doc.createdAt,
      lastUsedAt: doc.lastUsedAt ?? null,
      confirmed: doc.confirmed !== false,
      ...(doc.suspended ? { suspended: true } : {}),
      ...(doc.secret !== undefined ? { secret: this.box.open(doc.secret, doc.slot) } : {}),
      counter: doc[counterField(method)] ?? -1,
      codesLeft: doc.codes?.length ?? 0,
      details: { ...doc.details, ...(doc.publicKey !== undefined ? { publicKey: doc.publicKey, transports: doc.transports ?? [] } : {}) },
    };
  }
}
