// Admin user routes: update a user, replace and read their avatar. Admin sessions only.
import { Router, type RequestHandler } from 'express';
import multer from 'multer';
import { errors, ok } from '@acct/shared';
import type { AvatarStore } from '../../data-access/avatar-store';
import { AVATAR_MAX_BYTES, AdminUserErrors, assertUserId, replaceAvatar, requireAdminSession, updateUser } from '../../domain/admin-users';
import type { AuthDomain } from '../../domain/deps';

export function adminUsersRouter(domain: AuthDomain, avatars: AvatarStore): Router {
  const router = Router();
  const adminOnly: RequestHandler = async (req, _res, next) => {
    await requireAdminSession(domain, domain.tokens.verifier.verifyHeader(req.get('authorization')));
    next();
  };
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: AVATAR_MAX_BYTES, files: 1, fields: 5 } }).single('avatar');
  const receiveAvatar: RequestHandler = (req, res, next) => {
    if (!req.is('multipart/form-data')) return next(errors.validation('Send the avatar as multipart/form-data'));
    upload(req, res, (err?: unknown) => {
      if (!err) return next();
      const code = (err as { code?: string }).code;
      if (code === 'LIMIT_FILE_SIZE') return next(AdminUserErrors.avatarTooLarge());
      if (code === 'LIMIT_UNEXPECTED_FILE' || code === 'LIMIT_FILE_COUNT') return next(errors.validation('Send one file, in the field avatar'));
      return next(errors.validation('Malformed multipart body'));
    });
  };

  router.put('/api/admin/users/:userId', adminOnly, async (req, res) => {
    const user = await updateUser(domain, String(req.params.userId), req.body);
    res.json(ok('User updated successfully', { user }));
  });

  const validId: RequestHandler = (req, _res, next) => {
    assertUserId(String(req.params.userId));
    next();
  };

  router.put('/api/admin/users/:userId/avatar', adminOnly, validId, receiveAvatar, async (req, res) => {
    const user = await replaceAvatar(domain, avatars, String(req.params.userId), req.file);
    res.json(ok('Avatar updated successfully', { user }));
  });

  router.get('/api/admin/users/:userId/avatar', adminOnly, async (req, res) => {
    const id = String(req.params.userId);
    assertUserId(id);
    const user = await domain.accounts.user.findById(id);
    if (!user) throw AdminUserErrors.notFound();
    if (!user.avatar?.fileId) throw AdminUserErrors.noAvatarStored();
    res.setHeader('Content-Type', user.avatar.contentType);
    res.setHeader('Content-Length', String(user.avatar.size));
    res.setHeader('Cache-Control', 'private, no-cache');
    await new Promise<void>((resolve, reject) => {
      avatars.open(user.avatar!.fileId).once('error', reject).pipe(res).once('finish', () => resolve());
    });
  });

  return router;
}
