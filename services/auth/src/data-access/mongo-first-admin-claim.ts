// The one-time right to create the first admin: a marker document that only one request can insert,
// taken only while no admin exists.
import type { Connection } from 'mongoose';
import type { FirstAdminClaim } from '../domain/account/ports';
import { isDuplicateKey } from '@acct/shared/mongo';

export class MongoFirstAdminClaim implements FirstAdminClaim {
  /** Once an admin exists it always will (the last one cannot go): every sign-in page asks, so the answer is then kept. */
  private adminExists = false;

  constructor(private readonly mongo: Connection) {}

  async available(): Promise<boolean> {
    if (this.adminExists) return false;
    if ((await this.mongo.collection('admins').estimatedDocumentCount()) > 0) {
      this.adminExists = true;
      return false;
    }
    return (await this.mongo.collection<{ _id: string }>('settings').findOne({ _id: 'first-admin' })) === null;
  }

  async claim(): Promise<(() => Promise<void>) | undefined> {
    if ((await this.mongo.collection('admins').estimatedDocumentCount()) > 0) return undefined;
    const settings = this.mongo.collection<{ _id: string; at: Date }>('settings');
    try {
      await settings.insertOne({ _id: 'first-admin', at: new Date() });
    } catch (err) {
      if (isDuplicateKey(err)) return undefined;
      throw err;
    }
    return async () => {
      await settings.deleteOne({ _id: 'first-admin' });
    };
  }
}
