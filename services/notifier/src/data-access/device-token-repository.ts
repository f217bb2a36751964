// Device push tokens, per user and device, in the notifier's own MongoDB collection.
import mongoose, { type Connection, type Model } from 'mongoose';
import type { DeviceTokens } from '../domain/ports';
import { modelOn } from '@acct/shared/mongo';

interface DeviceTokenDoc {
  userId: string;
  deviceId: string;
  platform: string;
  pushToken: string;
  /** The session that registered the token; its end removes the token. */
  sessionId?: string | null;
  updatedAt: Date;
}

const deviceTokenSchema = new mongoose.Schema<DeviceTokenDoc>(
  {
    userId: { type: String, required: true },
    deviceId: { type: String, required: true },
    platform: { type: String, required: true },
    pushToken: { type: String, required: true, index: true },
    sessionId: { type: String },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
deviceTokenSchema.index({ userId: 1, deviceId: 1 }, { unique: true });

type Waiter = { resolve: (tokens: string[]) => void; reject: (err: unknown) => void };

/** Most users one token lookup asks for. */
const LOOKUP_BATCH = 500;

export class DeviceTokenRepository implements DeviceTokens {
  private readonly model: Model<DeviceTokenDoc>;
  // Token lookups waiting for the next query, by user id, and whether one is under way.
  private readonly waiting = new Map<string, Waiter[]>();
  private looking = false;

  constructor(connection: Connection) {
    this.model = modelOn<DeviceTokenDoc>(connection, 'DeviceToken', deviceTokenSchema, 'device_tokens');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Stores a device's token; a token that moved to another user or device leaves its old place. */
  async register(userId: string, deviceId: string, platform: string, pushToken: string, sessionId?: string): Promise<void> {
    await this.model.deleteMany({ pushToken, $or: [{ userId: { $ne: userId } }, { deviceId: { $ne: deviceId } }] }).exec();
    await this.model.updateOne({ userId, deviceId }, { $set: { platform, pushToken, sessionId: sessionId ?? null, updatedAt: new Date() } }, { upsert: true }).exec();
  }

  async removeOfSessions(userId: string, sessionIds: string[] | 'all'): Promise<number> {
    const filter = sessionIds === 'all' ? { userId } : { userId, sessionId: { $in: sessionIds } };
    return (await this.model.deleteMany(filter).exec()).deletedCount;
  }

  /**
   * A user's push tokens, read fresh on every login event (no cache: a new device is never missed).
   * One query is under way at a time and the lookups that arrive meanwhile share the next one
   * (`userId: {$in: […]}`): alone a lookup goes out at once, in a burst of events they cost one
   * round trip per batch instead of one each. Straight to the driver, skipping mongoose's query
   * machinery.
   */
  tokensOf(userId: string): Promise<string[]> {
    const id = String(userId);
    return new Promise<string[]>((resolve, reject) => {
      const waiters = this.waiting.get(id);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(id, [{ resolve, reject }]);
      if (!this.looking) void this.lookUp();
    });
  }

  private async lookUp(): Promise<void> {
    this.looking = true;
    while (this.waiting.size > 0) {
      const ids = [...this.waiting.keys()].slice(0, LOOKUP_BATCH);
      const batch = new Map(ids.map((id) => [id, this.waiting.get(id)!]));
      for (const id of ids) this.waiting.delete(id);
      try {
        const docs = await this.model.collection.find({ userId: { $in: ids } }, { projection: { _id: 0, userId: 1, pushToken: 1 } }).toArray();
        const tokens = new Map<string, Set<string>>();
        for (const doc of docs) {
          const set = tokens.get(doc.userId as string) ?? new Set<string>();
          set.add(doc.pushToken as string);
          tokens.set(doc.userId as string, set);
        }
        for (const [id, waiters] of batch) for (const w of waiters) w.resolve([...(tokens.get(id) ?? [])]);
      } catch (err) {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
      }
    }
    this.looking = false;
  }

  async remove(tokens: string[]): Promise<number> {
    if (tokens.length === 0) return 0;
    return (await this.model.deleteMany({ pushToken: { $in: tokens } }).exec()).deletedCount;
  }
}
