// Avatars in MongoDB GridFS (bucket `avatars`): stored whole, read back as a stream.
import { Readable } from 'node:stream';
import mongoose, { type Connection } from 'mongoose';
import type { Avatars } from '../domain/account/ports';

export class GridFsAvatars implements Avatars {
  private readonly bucket: InstanceType<typeof mongoose.mongo.GridFSBucket>;

  constructor(connection: Connection) {
    this.bucket = new mongoose.mongo.GridFSBucket(connection.db!, { bucketName: 'avatars' });
  }

  async save(userId: string, content: Buffer, contentType: string): Promise<string> {
    const upload = this.bucket.openUploadStream(`${userId}`, { metadata: { userId, contentType } });
    await new Promise<void>((resolve, reject) => {
      Readable.from([content]).pipe(upload).once('finish', () => resolve()).once('error', reject);
    });
    return upload.id.toString();
  }

  open(fileId: string): Readable {
    return this.bucket.openDownloadStream(new mongoose.mongo.ObjectId(fileId));
  }

  async remove(fileId: string): Promise<void> {
    await this.bucket.delete(new mongoose.mongo.ObjectId(fileId)).catch(() => undefined);
  }
}
