// Per-user sync state: items (one per key, last writer wins by updatedAt, ties to the higher device
// id), a per-user sequence that orders changes for cursors, and the user's devices.
import { createHash } from 'node:crypto';
import mongoose, { type Connection, type Model } from 'mongoose';
import { isDuplicateKey, modelOn } from '@acct/shared/mongo';
import type { DesktopSummary, DeviceReport, SyncChange, SyncItem, SyncStore } from '../domain/ports';

interface SyncItemDoc {
  userId: string;
  key: string;
  /** Stored as JSON text: any client JSON, with no key restrictions and no operator injection. */
  valueJson: string;
  updatedAt: Date;
  deviceId: string;
  seq: number;
}

interface CounterDoc {
  _id: string;
  seq: number;
}

interface DeviceDoc {
  userId: string;
  deviceId: string;
  platform: string;
  appVersion: string;
  /** SHA-256 of the session and push token last reported: enough to tell a new one. The token itself is the notifier's alone. */
  pushTokenHash: string | null;
  lastSyncAt: Date;
}


const itemSchema = new mongoose.Schema<SyncItemDoc>(
  {
    userId: { type: String, required: true },
    key: { type: String, required: true },
    valueJson: { type: String, required: true },
    updatedAt: { type: Date, required: true },
    deviceId: { type: String, required: true },
    seq: { type: Number, required: true },
  },
  { versionKey: false },
);
itemSchema.index({ userId: 1, key: 1 }, { unique: true });
itemSchema.index({ userId: 1, seq: 1 });

const counterSchema = new mongoose.Schema<CounterDoc>({ _id: String, seq: Number }, { versionKey: false });

const deviceSchema = new mongoose.Schema<DeviceDoc>(
  {
    userId: { type: String, required: true },
    deviceId: { type: String, required: true },
    platform: String,
    appVersion: String,
    pushTokenHash: { type: String, default: null },
    lastSyncAt: Date,
  },
  { versionKey: false },
);
deviceSchema.index({ userId: 1, deviceId: 1 }, { unique: true });


export class SyncRepository implements SyncStore {
  private readonly items: Model<SyncItemDoc>;
  private readonly counters: Model<CounterDoc>;
  private readonly devices: Model<DeviceDoc>;

  constructor(connection: Connection) {
    this.items = modelOn<SyncItemDoc>(connection, 'SyncItem', itemSchema, 'sync_items');
    this.counters = modelOn<CounterDoc>(connection, 'SyncCounter', counterSchema, 'sync_counters');
    this.devices = modelOn<DeviceDoc>(connection, 'Device', deviceSchema, 'devices');
  }

  async init(): Promise<void> {
    await Promise.all([this.items.createIndexes(), this.devices.createIndexes()]);
  }

  /** Writes the change if it is newer than what is stored; answers whether it was accepted. */
  async merge(userId: string, deviceId: string, change: SyncChange): Promise<boolean> {
    const seq = await this.nextSeq(userId);
    try {
      // Matches only an older (or tied and lower-device) version; an upsert past a newer one hits the unique index.
      const result = await this.items
        .updateOne(
          { userId, key: change.key, $or: [{ updatedAt: { $lt: change.updatedAt } }, { updatedAt: change.updatedAt, deviceId: { $lt: deviceId } }] },
          { $set: { valueJson: change.valueJson, updatedAt: change.updatedAt, deviceId, seq } },
          { upsert: true },
        )
        .exec();
      return result.modifiedCount + result.upsertedCount > 0;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** Changes after a cursor, in order; `next` is the cursor to hand back. */
  async changesSince(userId: string, cursor: number, limit: number, exclude: Set<string>): Promise<{ items: SyncItem[]; next: number; hasMore: boolean }> {
    const docs = await this.items.find({ userId, seq: { $gt: cursor } }).sort({ seq: 1 }).limit(limit + 1).lean<SyncItemDoc[]>().exec();
    const hasMore = docs.length > limit;
    const page = docs.slice(0, limit);
    const next = hasMore ? page[page.length - 1].seq : Math.max(cursor, await this.currentSeq(userId));
    const items = page.filter((d) => !exclude.has(d.key)).map((d) => ({ key: d.key, value: JSON.parse(d.valueJson), updatedAt: d.updatedAt.toISOString() }));
    return { items, next, hasMore };
  }

  async itemsByKeys(userId: string, keys: string[]): Promise<SyncItem[]> {
    if (keys.length === 0) return [];
    const docs = await this.items.find({ userId, key: { $in: keys } }).lean<SyncItemDoc[]>().exec();
    return docs.map((d) => ({ key: d.key, value: JSON.parse(d.valueJson), updatedAt: d.updatedAt.toISOString() }));
  }

  /** Records the device; answers whether it brought a push token other than the one it last reported. */
  async touchDevice(userId: string, device: DeviceReport, sessionId: string): Promise<boolean> {
    const set: Partial<DeviceDoc> = { platform: device.platform, appVersion: device.appVersion, lastSyncAt: new Date() };
    // Of the token and the session that reports it: the same token from a new session is registered
    // again (the notifier dropped it with the session that registered it).
    const tokenHash = device.pushToken ? createHash('sha256').update(`${sessionId}:${device.pushToken}`).digest('base64url') : undefined;
    if (tokenHash) set.pushTokenHash = tokenHash;
    // A device stored before tokens were kept as hashes loses its plain token here.
    const before = await this.devices
      .findOneAndUpdate({ userId, deviceId: device.id }, { $set: set, $unset: { pushToken: '' } }, { upsert: true, new: false })
      .lean<DeviceDoc>()
      .exec();
    return tokenHash !== undefined && tokenHash !== before?.pushTokenHash;
  }

  private async nextSeq(userId: string): Promise<number> {
    const counter = await this.counters.findOneAndUpdate({ _id: userId }, { $inc: { seq: 1 } }, { upsert: true, new: true }).lean<CounterDoc>().exec();
    return counter!.seq;
  }

  currentCursor(userId: string): Promise<number> {
    return this.currentSeq(userId);
  }

  async summaryOf(userId: string): Promise<DesktopSummary> {
    const [devices, items, cursor] = await Promise.all([
      this.devices.find({ userId }).sort({ deviceId: 1 }).lean<DeviceDoc[]>().exec(),
      this.items.countDocuments({ userId }).exec(),
      this.currentSeq(userId),
    ]);
    return {
      devices: devices.map((d) => ({ id: d.deviceId, platform: d.platform, appVersion: d.appVersion, lastSyncAt: d.lastSyncAt ? d.lastSyncAt.toISOString() : null })),
      sync: { items, cursor: String(cursor) },
    };
  }

  async removeUser(userId: string): Promise<number> {
    const [items, devices, counters] = await Promise.all([
      this.items.deleteMany({ userId }).exec(),
      this.devices.deleteMany({ userId }).exec(),
      this.counters.deleteOne({ _id: userId }).exec(),
    ]);
    return items.deletedCount + devices.deletedCount + counters.deletedCount;
  }

  private async currentSeq(userId: string): Promise<number> {
    return (await this.counters.findById(userId).lean<CounterDoc>().exec())?.seq ?? 0;
  }
}
