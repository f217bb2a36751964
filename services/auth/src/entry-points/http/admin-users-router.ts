// Admin user routes: update a user, replace and read their avatar. Admin sessions only.
import { Router, type RequestHandler } from 'express';
import multer from 'multer';
import { ok, type AccessTokenVerifier } from '@acct/shared';
import { AVATAR_MAX_BYTES, assertUserId, readAvatar, replaceAvatar, requireAdminSession, updateUser } from '../../domain/admin-users';
import type { AuthPorts } from '../../domain/ports';
import { AuthErrors } from '../../errors';

export function adminUsersRouter(domain: AuthPorts, verifier: AccessTokenVerifier): Router {
  const router = Router();
  const adminOnly: RequestHandler = async (req, _res, next) => {
    await requireAdminSession(domain, verifier.verifyHeader(req.get('authorization')));
    next();
  };
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: AVATAR_MAX_BYTES, files: 1, fields: 5 } }).single('avatar');
  const receiveAvatar: RequestHandler = (req, res, next) => {
    if (!req.is('multipart/form-data')) return next(AuthErrors.avatarNotMultipart());
    upload(req, res, (err?: unknown) => {
      if (!err) return next();
      const code = (err as { code?: string }).code;
      if (code === 'LIMIT_FILE_SIZE') return next(AuthErrors.avatarTooLarge());
      if (code === 'LIMIT_UNEXPECTED_FILE' || code === 'LIMIT_FILE_COUNT') return next(AuthErrors.avatarOneFile());
      return next(AuthErrors.malformedMultipart());
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
    const user = await replaceAvatar(domain, String(req.params.userId), req.file);
    res.json(ok('Avatar updated successfully', { user }));
  });

  router.get('/api/admin/users/:userId/avatar', adminOnly, async (req, res) => {
    const avatar = await readAvatar(domain, String(req.params.userId));
    res.setHeader('Content-Type', avatar.contentType);
    res.setHeader('Content-Length', String(avatar.size));
    res.setHeader('Cache-Control', 'private, no-cache');
    await new Promise<void>((resolve, reject) => {
      avatar.stream.once('error', reject).pipe(res).once('finish', () => resolve());
    });
  });

  return router;
}
