// A user's avatar: one PNG, JPEG or WebP image (the type read from its bytes) of at most
// AVATAR_MAX_BYTES, replaced or removed by its owner or an admin, read back as a stream.
import type { Readable } from 'node:stream';
import { AuthErrors } from '../../errors';
import { assertUserId, toAccountRecord, type AccountRecord } from '../shared/account';
import { noteActivity } from '../shared/activity';
import type { Needs, RequestContext } from './ports';

export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;

export async function replaceAvatar(deps: Needs<'accounts' | 'avatars' | 'activity' | 'logger'>, id: string, file: { buffer: Buffer } | undefined, ctx?: RequestContext): Promise<AccountRecord> {
  assertUserId(id);
  if (!file || file.buffer.length === 0) throw AuthErrors.noAvatar();
  const contentType = sniffImageType(file.buffer);
  if (!contentType) throw AuthErrors.avatarType();
  const user = await deps.accounts.user.findById(id);
  if (!user) throw AuthErrors.userNotFound();
  const fileId = await deps.avatars.save(id, file.buffer, contentType);
  const updated = await deps.accounts.user.update(id, { avatar: { fileId, contentType, size: file.buffer.length, updatedAt: new Date() } });
  if (!updated || updated === 'email_taken') {
    await deps.avatars.remove(fileId);
    throw AuthErrors.userNotFound();
  }
  if (user.avatar?.fileId) await deps.avatars.remove(user.avatar.fileId);
  await noteActivity(deps, ctx, { kind: 'user', accountId: id, type: 'avatar_replaced' });
  return toAccountRecord('user', updated);
}

/** Removes a user's avatar and its stored image. */
export async function removeAvatar(deps: Needs<'accounts' | 'avatars' | 'activity' | 'logger'>, id: string, ctx?: RequestContext): Promise<AccountRecord> {
  assertUserId(id);
  const user = await deps.accounts.user.findById(id);
  if (!user) throw AuthErrors.userNotFound();
  if (!user.avatar?.fileId) throw AuthErrors.noAvatarStored();
  const updated = await deps.accounts.user.update(id, { avatar: null });
  if (!updated || updated === 'email_taken') throw AuthErrors.userNotFound();
  await deps.avatars.remove(user.avatar.fileId);
  await noteActivity(deps, ctx, { kind: 'user', accountId: id, type: 'avatar_removed' });
  return toAccountRecord('user', updated);
}

export interface AvatarContent {
  contentType: string;
  size: number;
  stream: Readable;
}

/** A user's stored avatar, to stream to its owner or an admin. */
export async function readAvatar(deps: Needs<'accounts' | 'avatars'>, id: string): Promise<AvatarContent> {
  assertUserId(id);
  const user = await deps.accounts.user.findById(id);
  if (!user) throw AuthErrors.userNotFound();
  if (!user.avatar?.fileId) throw AuthErrors.noAvatarStored();
  return { contentType: user.avatar.contentType, size: user.avatar.size, stream: deps.avatars.open(user.avatar.fileId) };
}

/** The image type from the file's first bytes, whatever the upload claimed. */
function sniffImageType(content: Buffer): 'image/png' | 'image/jpeg' | 'image/webp' | undefined {
  if (content.length >= 8 && content.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (content.length >= 3 && content[0] === 0xff && content[1] === 0xd8 && content[2] === 0xff) return 'image/jpeg';
  if (content.length >= 12 && content.toString('ascii', 0, 4) === 'RIFF' && content.toString('ascii', 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}
