// Admin management of user accounts: update fields or set a password, and the avatar.
import { noteActivity } from './activity';
import type { Readable } from 'node:stream';
import { AuthErrors } from '../errors';
import { isAccountId, toAccountRecord, type AccountChanges, type AccountRecord } from './account';
import { assertNotCommon, assertPasswordPolicy } from './passwords';
import { assertAddressFree, sendVerificationLink, verifiesEmail } from './email-ownership';
import type { Needs, RequestContext } from './ports';
import { asBody, pageParams, requireEmail, requireName } from './validation';
import { endEverySession } from './sessions';

export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;

export function assertUserId(id: string): void {
  if (!isAccountId(id)) throw AuthErrors.badUserId();
}

export async function updateUser(deps: Needs<'accounts' | 'hasher' | 'passwordScreen' | 'sessions' | 'otp' | 'links' | 'outbox' | 'activity' | 'logger' | 'policy'>, id: string, raw: unknown, ctx: RequestContext): Promise<AccountRecord> {
  assertUserId(id);
  const { name, email, disabled, password } = asBody(raw);
  if (name === undefined && email === undefined && disabled === undefined && password === undefined) throw AuthErrors.nothingToUpdate();
  const changes: AccountChanges = {};
  if (name !== undefined) {
    changes.name = requireName(name);
  }
  if (email !== undefined) {
    changes.email = requireEmail(email);
    await assertAddressFree(deps, 'user', changes.email, id);
    // An admin cannot vouch for an inbox: the new address is proven by a link, as a registration's is.
    if (verifiesEmail(deps, 'user')) changes.emailVerified = false;
  }
  if (disabled !== undefined) {
    if (typeof disabled !== 'boolean') throw AuthErrors.disabledNotBoolean();
    changes.disabled = disabled;
  }
  if (password !== undefined) {
    if (typeof password !== 'string') throw AuthErrors.passwordPolicy();
    assertPasswordPolicy(password);
    assertNotCommon(deps, password);
    changes.passwordHash = await deps.hasher.hash(password);
  }
  // A disable or a new password ends every session, also of a login that raced this change.
  if (changes.disabled === true || changes.passwordHash) changes.endSessions = true;
  const updated = await deps.accounts.user.update(id, changes);
  if (updated === 'email_taken') throw AuthErrors.emailTaken();
  if (!updated) throw AuthErrors.userNotFound();
  // What changed, by name (never a value), with the admin who changed it.
  const changed = [changes.name !== undefined && 'name', changes.email !== undefined && 'email', changes.disabled === true && 'disabled', changes.disabled === false && 'enabled', changes.passwordHash && 'password'];
  await noteActivity(deps, ctx, { kind: 'user', accountId: updated.id, type: 'profile_updated', details: changed.filter((c): c is string => typeof c === 'string') });
  if (changes.endSessions) await endEverySession(deps, 'user', updated, ctx);
  if (changes.emailVerified === false) await sendVerificationLink(deps, 'user', updated, ctx);
  return toAccountRecord('user', updated);
}

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

export async function getUser(deps: Needs<'accounts'>, id: string): Promise<AccountRecord> {
  assertUserId(id);
  const user = await deps.accounts.user.findById(id);
  if (!user) throw AuthErrors.userNotFound();
  return toAccountRecord('user', user);
}

export interface UserPage {
  users: AccountRecord[];
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

/** A page of users in a stable order, optionally those whose email or name contains `query`. */
export async function listUsers(deps: Needs<'accounts'>, params: { query?: unknown; cursor?: unknown; limit?: unknown; emailVerified?: unknown; disabled?: unknown }): Promise<UserPage> {
  const { limit, cursor } = pageParams(params, 20);
  const query = params.query ?? '';
  if (typeof query !== 'string' || query.length > 100) throw AuthErrors.badListQuery();
  const verified = params.emailVerified;
  if (verified !== undefined && verified !== 'true' && verified !== 'false') throw AuthErrors.badListVerified();
  const disabled = params.disabled;
  if (disabled !== undefined && disabled !== 'true' && disabled !== 'false') throw AuthErrors.badListDisabled();
  // One more than asked tells whether another page follows.
  const found = await deps.accounts.user.list({
    query: query.trim() || undefined,
    after: cursor || undefined,
    limit: limit + 1,
    emailVerified: verified === undefined ? undefined : verified === 'true',
    disabled: disabled === undefined ? undefined : disabled === 'true',
  });
  const page = found.slice(0, limit);
  return { users: page.map((u) => toAccountRecord('user', u)), nextCursor: found.length > limit ? page[page.length - 1].id : null };
}

export interface AvatarContent {
  contentType: string;
  size: number;
  stream: Readable;
}

/** A user's stored avatar, to stream to an admin. */
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
