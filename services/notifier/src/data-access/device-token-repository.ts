// Device push tokens, per user and device, in the notifier's own MongoDB collection.
import mongoose, { type Connection, type Model } from 'mongoose';

interface DeviceTokenDoc {
  userId: string;
  deviceId: string;
  platform: string;
  pushToken: string;
  updatedAt: Date;
}

const deviceTokenSchema = new mongoose.Schema<DeviceTokenDoc>(
  {
    userId: { type: String, required: true },
    deviceId: { type: String, required: true },
    platform: { type: String, required: true },
    pushToken: { type: String, required: true, index: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
deviceTokenSchema.index({ userId: 1, deviceId: 1 }, { unique: true });

export class DeviceTokenRepository {
  private readonly model: Model<DeviceTokenDoc>;

  constructor(connection: Connection) {
    this.model = connection.models.DeviceToken ?? connection.model<DeviceTokenDoc>('DeviceToken', deviceTokenSchema, 'device_tokens');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Stores a device's token; a token that moved to another user or device leaves its old place. */
  async register(userId: string, deviceId: string, platform: string, pushToken: string): Promise<void> {
    await this.model.deleteMany({ pushToken, $or: [{ userId: { $ne: userId } }, { deviceId: { $ne: deviceId } }] }).exec();
    await this.model.updateOne({ userId, deviceId }, { $set: { platform, pushToken, updatedAt: new Date() } }, { upsert: true }).exec();
  }

  /** On every login event: straight to the driver, skipping mongoose's query machinery. */
  async tokensOf(userId: string): Promise<string[]> {
    const docs = await this.model.collection.find({ userId: String(userId) }, { projection: { _id: 0, pushToken: 1 } }).toArray();
    return [...new Set(docs.map((d) => d.pushToken as string))];
  }

  async remove(tokens: string[]): Promise<number> {
    if (tokens.length === 0) return 0;
    return (await this.model.deleteMany({ pushToken: { $in: tokens } }).exec()).deletedCount;
  }
}
