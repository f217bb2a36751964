// Back-channel logouts waiting to reach their apps (MongoDB `app_logouts`): an app's session ended,
// and the app asked to be told. Written leased to the replica that ends the session, which tells the
// app at once; the job claims what is left (an app that did not answer backs off, a crashed
// replica's lease runs out), so any number of replicas share them and none is lost to a crash or an
// app that is down for a while. A day after the end, telling it is pointless: the entry goes.
import mongoose, { type Connection, type Model, Types } from 'mongoose';
import type { AccountKind } from '@acct/shared';
import { LeasedQueue, modelOn } from '@acct/shared/mongo';

/** One app to tell that one of its sessions ended: the logout token's `sub`, `aud` and `sid`. */
export interface AppLogout {
  kind: AccountKind;
  accountId: string;
  appId: string;
  sid: string;
}

export interface ClaimedAppLogout extends AppLogout {
  id: string;
  attempts: number;
}

interface AppLogoutDoc extends AppLogout {
  _id: Types.ObjectId;
  createdAt: Date;
  leaseUntil: Date;
  attempts: number;
  lastError?: string;
}

const appLogoutSchema = new mongoose.Schema<AppLogoutDoc>(
  {
    kind: { type: String, required: true },
    accountId: { type: String, required: true },
    appId: { type: String, required: true },
    sid: { type: String, required: true },
    createdAt: { type: Date, required: true, index: { expireAfterSeconds: 86_400 } },
    leaseUntil: { type: Date, required: true },
    attempts: { type: Number, default: 0 },
    lastError: String,
  },
  { versionKey: false },
);
appLogoutSchema.index({ leaseUntil: 1 });

export class MongoAppLogoutQueue {
  private readonly model: Model<AppLogoutDoc>;
  private readonly queue: LeasedQueue<AppLogoutDoc>;

  constructor(connection: Connection, leaseMs = 30_000) {
    this.model = modelOn<AppLogoutDoc>(connection, 'AppLogout', appLogoutSchema, 'app_logouts');
    this.queue = new LeasedQueue(this.model, { leaseMs });
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Keeps the logouts, leased to the caller (one attempt counted), which tells the apps now. */
  async enqueue(logouts: AppLogout[]): Promise<ClaimedAppLogout[]> {
    const now = new Date();
    const docs = await this.model.insertMany(logouts.map((l) => ({ ...l, createdAt: now, leaseUntil: this.queue.leaseEnd(now), attempts: 1 })));
    return docs.map((doc) => ({ id: doc._id.toString(), kind: doc.kind, accountId: doc.accountId, appId: doc.appId, sid: doc.sid, attempts: doc.attempts }));
  }

  /** Leases the logout due longest to this worker. */
  async claim(now = new Date()): Promise<ClaimedAppLogout | undefined> {
    const doc = await this.queue.claim(now);
    return doc ? { id: doc._id.toString(), kind: doc.kind, accountId: doc.accountId, appId: doc.appId, sid: doc.sid, attempts: doc.attempts } : undefined;
  }

  /** The app did not take it: tried again after a back-off, with the reason kept beside it. */
  async backOff(id: string, attempts: number, reason: string): Promise<void> {
    if (Types.ObjectId.isValid(id)) await this.queue.backOff(new Types.ObjectId(id), attempts, { lastError: reason.slice(0, 300) });
  }

  async remove(id: string): Promise<void> {
    if (Types.ObjectId.isValid(id)) await this.queue.remove(new Types.ObjectId(id));
  }
}
