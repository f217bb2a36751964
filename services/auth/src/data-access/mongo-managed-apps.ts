// The apps admins register (MongoDB `openid_apps`): one document per app, its id the client id, its
// secrets as SHA-256 hashes with the end of each one's overlap. The OpenID provider reads an app here
// at each request that names it (security/openid-provider.ts), so a change or a deletion holds at once
// on every replica.
import mongoose, { type Connection, type Model } from 'mongoose';
import { isDuplicateKey, modelOn } from '@acct/shared/mongo';
import type { AppSecretRecord, ManagedApp, ManagedApps } from '../domain/apps/ports';

interface AppDoc extends Omit<ManagedApp, 'id'> {
  _id: string;
}

const appSchema = new mongoose.Schema<AppDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    kind: { type: String, required: true },
    firstParty: { type: Boolean, required: true },
    confidential: { type: Boolean, required: true },
    native: { type: Boolean, required: true },
    deviceCode: { type: Boolean, required: true },
    redirectUris: { type: [String], default: [] },
    postLogoutRedirectUris: { type: [String], default: [] },
    backchannelLogoutUri: { type: String },
    scopes: { type: [String], default: [] },
    secrets: { type: [{ _id: false, hash: String, createdAt: Date, expiresAt: Date }], default: [] },
    createdAt: { type: Date, required: true, index: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);

function plain(doc: AppDoc): ManagedApp {
  const { _id, secrets, backchannelLogoutUri, ...rest } = doc;
  return {
    id: _id,
    ...rest,
    ...(backchannelLogoutUri ? { backchannelLogoutUri } : {}),
    secrets: secrets.map((s: AppSecretRecord) => ({ hash: s.hash, createdAt: s.createdAt, ...(s.expiresAt ? { expiresAt: s.expiresAt } : {}) })),
  };
}

export class MongoManagedApps implements ManagedApps {
  private readonly model: Model<AppDoc>;

  constructor(connection: Connection) {
    this.model = modelOn<AppDoc>(connection, 'OpenIdApp', appSchema, 'openid_apps');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  async create(app: ManagedApp): Promise<boolean> {
    const { id, ...rest } = app;
    try {
      await this.model.create({ _id: id, ...rest });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  async find(id: string): Promise<ManagedApp | undefined> {
    const doc = await this.model.findById(id).lean<AppDoc>().exec();
    return doc ? plain(doc) : undefined;
  }

  async list(limit: number): Promise<ManagedApp[]> {
    const docs = await this.model.find({}).sort({ createdAt: 1, _id: 1 }).limit(limit).lean<AppDoc[]>().exec();
    return docs.map(plain);
  }

  async update(id: string, changes: Parameters<ManagedApps['update']>[1]): Promise<ManagedApp | undefined> {
    const set: Record<string, unknown> = { updatedAt: new Date() };
    const unset: Record<string, ''> = {};
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) {
        if (field in changes) unset[field] = '';
      } else set[field] = value;
    }
    const doc = await this.model
      .findOneAndUpdate({ _id: id }, { $set: set, ...(Object.keys(unset).length ? { $unset: unset } : {}) }, { new: true })
      .lean<AppDoc>()
      .exec();
    return doc ? plain(doc) : undefined;
  }

  async remove(id: string): Promise<boolean> {
    const { deletedCount } = await this.model.deleteOne({ _id: id }).exec();
    return deletedCount > 0;
  }
}
