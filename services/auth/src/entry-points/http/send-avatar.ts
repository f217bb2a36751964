// Streams a stored avatar as the answer: its type and length, revalidated on every use.
import type { Response } from 'express';
import type { AvatarContent } from '../../domain/account/avatar';

export async function sendAvatar(res: Response, avatar: AvatarContent): Promise<void> {
  res.setHeader('Content-Type', avatar.contentType);
  res.setHeader('Content-Length', String(avatar.size));
  res.setHeader('Cache-Control', 'private, no-cache');
  await new Promise<void>((resolve, reject) => {
    avatar.stream.once('error', reject).pipe(res).once('finish', () => resolve());
  });
}
