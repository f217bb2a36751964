// Admin management of user accounts: update fields or set a password, and the avatar.
import { Types } from 'mongoose';
import { AppError, errors, type AccessClaims } from '@acct/shared';
import { AuthErrors } from '../errors';
import { isDuplicateKey, toAccountRecord, type AccountDoc, type AccountRecord } from '../data-access/account-repository';
import { sniffImageType, type AvatarStore } from '../data-access/avatar-store';
import type { AuthDomain } from './deps';
import { assertPasswordPolicy } from './passwords';
import { asBody, requireEmail } from './validation';

export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;

export const AdminUserErrors = {
  authRequired: () => new AppError('unauthorized', 401, 'Authentication required'),
  adminOnly: () => new AppError('forbidden', 403, 'Admin session required'),
  badId: () => errors.validation('Invalid user id'),
  notFound: () => new AppError('user_not_found', 404, 'User not found'),
  nothingToUpdate: () => errors.validation('Provide at least one of name, email, disabled or password'),
  disabledNotBoolean: () => errors.validation('disabled must be true or false'),
  noAvatar: () => errors.validation('Please provide an avatar file in the field avatar'),
  avatarType: () => new AppError('unsupported_media_type', 415, 'Avatar must be a PNG, JPEG or WebP image'),
  avatarTooLarge: () => new AppError('payload_too_large', 413, 'Avatar must be at most 2 MiB'),
  noAvatarStored: () => new AppError('avatar_not_found', 404, 'This user has no avatar'),
};

export function requireAdmin(claims: AccessClaims | undefined): AccessClaims {
  if (!claims) throw AdminUserErrors.authRequired();
  if (claims.kind !== 'admin') throw AdminUserErrors.adminOnly();
  return claims;
}

/**
 * An admin whose session is still alive: logout, a reset, a disable or reuse detection end admin
 * powers at once, not when the access token expires.
 */
export async function requireAdminSession(domain: Pick<AuthDomain, 'sessions'>, claims: AccessClaims | undefined): Promise<AccessClaims> {
  const admin = requireAdmin(claims);
  if (!(await domain.sessions.isActive('admin', admin.sid, admin.sub))) throw AuthErrors.sessionRevoked();
  return admin;
}

export function assertUserId(id: string): void {
  if (!Types.ObjectId.isValid(id) || String(new Types.ObjectId(id)) !== id.toLowerCase()) throw AdminUserErrors.badId();
}

export async function updateUser(domain: AuthDomain, id: string, raw: unknown): Promise<AccountRecord> {
  assertUserId(id);
  const { name, email, disabled, password } = asBody(raw);
  if (name === undefined && email === undefined && disabled === undefined && password === undefined) throw AdminUserErrors.nothingToUpdate();
  const fields: Partial<Pick<AccountDoc, 'name' | 'email' | 'disabled' | 'passwordHash'>> = {};
  if (name !== undefined) {
    if (typeof name !== 'string' || name.trim().length < 2 || name.trim().length > 20) throw AuthErrors.nameLength();
    fields.name = name.trim();
  }
  if (email !== undefined) {
    fields.email = requireEmail(email);
  }
  if (disabled !== undefined) {
    if (typeof disabled !== 'boolean') throw AdminUserErrors.disabledNotBoolean();
    fields.disabled = disabled;
  }
  if (password !== undefined) {
    if (typeof password !== 'string') throw AuthErrors.passwordPolicy();
    assertPasswordPolicy(password);
    fields.passwordHash = await domain.hasher.hash(password);
  }
  let updated: AccountDoc | null;
  try {
    updated = await domain.accounts.user.update(id, fields);
  } catch (err) {
    if (isDuplicateKey(err)) throw AuthErrors.emailTaken();
    throw err;
  }
  if (!updated) throw AdminUserErrors.notFound();
  if (fields.disabled === true || fields.passwordHash) await domain.sessions.revokeAll('user', id);
  return toAccountRecord('user', updated);
}

export async function replaceAvatar(domain: AuthDomain, avatars: AvatarStore, id: string, file: { buffer: Buffer } | undefined): Promise<AccountRecord> {
  assertUserId(id);
  if (!file || file.buffer.length === 0) throw AdminUserErrors.noAvatar();
  const contentType = sniffImageType(file.buffer);
  if (!contentType) throw AdminUserErrors.avatarType();
  const user = await domain.accounts.user.findById(id);
  if (!user) throw AdminUserErrors.notFound();
  const fileId = await avatars.save(id, file.buffer, contentType);
  const updated = await domain.accounts.user.update(id, { avatar: { fileId, contentType, size: file.buffer.length, updatedAt: new Date() } });
  if (!updated) {
    await avatars.remove(fileId);
    throw AdminUserErrors.notFound();
  }
  if (user.avatar?.fileId) await avatars.remove(user.avatar.fileId);
  return toAccountRecord('user', updated);
}
