// Avatars in MongoDB GridFS (bucket `avatars`): stored whole, read back as a stream.
import { Readable } from 'node:stream';
import mongoose, { type Connection, Types } from 'mongoose';

export class AvatarStore {
  private readonly bucket: InstanceType<typeof mongoose.mongo.GridFSBucket>;

  constructor(connection: Connection) {
    this.bucket = new mongoose.mongo.GridFSBucket(connection.db!, { bucketName: 'avatars' });
  }

  async save(userId: string, content: Buffer, contentType: string): Promise<Types.ObjectId> {
    const upload = this.bucket.openUploadStream(`${userId}`, { metadata: { userId, contentType } });
    await new Promise<void>((resolve, reject) => {
      Readable.from([content]).pipe(upload).once('finish', () => resolve()).once('error', reject);
    });
    return new Types.ObjectId(upload.id.toString());
  }

  open(fileId: Types.ObjectId): Readable {
    return this.bucket.openDownloadStream(new mongoose.mongo.ObjectId(fileId.toString()));
  }

  async remove(fileId: Types.ObjectId): Promise<void> {
    await this.bucket.delete(new mongoose.mongo.ObjectId(fileId.toString())).catch(() => undefined);
  }
}

/** The image type from the file's first bytes, whatever the upload claimed. */
export function sniffImageType(content: Buffer): 'image/png' | 'image/jpeg' | 'image/webp' | undefined {
  if (content.length >= 8 && content.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (content.length >= 3 && content[0] === 0xff && content[1] === 0xd8 && content[2] === 0xff) return 'image/jpeg';
  if (content.length >= 12 && content.toString('ascii', 0, 4) === 'RIFF' && content.toString('ascii', 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}
