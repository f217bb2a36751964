// Admin user routes: list and read users, update a user, replace and read their avatar, a user's
// sessions, identities and activity, the deployment's activity, the admins and the desktop releases
// (kept by desktop, asked with the admin's own token). Admin sessions only;
// an act that cannot be undone asks for the admin's recent proof (admin-console.ts).
import { Router, type RequestHandler } from 'express';
import multer from 'multer';
import { ok, type AccessTokenVerifier } from '@acct/shared';
import { requireSession, type AccessOptions } from '../../domain/access';
import { AVATAR_MAX_BYTES, assertUserId, getUser, listUsers, readAvatar, replaceAvatar, updateUser } from '../../domain/admin-users';
import { deleteUser } from '../../domain/account-deletion';
import { isAccountId } from '../../domain/account';
import { readActivity } from '../../domain/activity';
import { endUserSession, endUserSessions, listAdmins, unlinkUserIdentity, userIdentities, userSessions } from '../../domain/admin-console';
import { listDesktopReleases, publishDesktopRelease, withdrawDesktopRelease } from '../../domain/desktop-releases';
import type { AuthDeps } from '../../domain/ports';
import { AuthErrors } from '../../errors';
import { requestContextWithActor } from './request-context';
import { sendAvatar } from './send-avatar';

export function adminUsersRouter(deps: AuthDeps, verifier: AccessTokenVerifier): Router {
  const router = Router();
  const admin = (options: AccessOptions): RequestHandler => async (req, _res, next) => {
    await requireSession(deps, verifier.verifyHeader(req.get('authorization')), 'admin', options);
    next();
  };
  const adminOnly = admin({});
  // Changes to another account are read against the store too (access.ts says why).
  const adminChanging = admin({ fresh: true });
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

  router.get('/api/admin/users', adminOnly, async (req, res) => {
    const page = await listUsers(deps, { query: req.query.query, cursor: req.query.cursor, limit: req.query.limit, emailVerified: req.query.emailVerified, disabled: req.query.disabled });
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Users', page));
  });

  router.get('/api/admin/users/:userId', adminOnly, async (req, res) => {
    const user = await getUser(deps, String(req.params.userId));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('User', { user }));
  });

  router.put('/api/admin/users/:userId', adminChanging, async (req, res) => {
    const user = await updateUser(deps, String(req.params.userId), req.body, requestContextWithActor(req, verifier));
    res.json(ok('User updated successfully', { user }));
  });

  router.delete('/api/admin/users/:userId', adminChanging, async (req, res) => {
    await deleteUser(deps, String(req.params.userId), requestContextWithActor(req, verifier));
    res.json(ok('User deleted'));
  });

  const validId: RequestHandler = (req, _res, next) => {
    assertUserId(String(req.params.userId));
    next();
  };

  router.put('/api/admin/users/:userId/avatar', adminChanging, validId, receiveAvatar, async (req, res) => {
    const user = await replaceAvatar(deps, String(req.params.userId), req.file, requestContextWithActor(req, verifier));
    res.json(ok('Avatar updated successfully', { user }));
  });

  router.get('/api/admin/users/:userId/activity', adminOnly, validId, async (req, res) => {
    const page = await readActivity(deps, { kind: 'user', accountId: String(req.params.userId) }, { cursor: req.query.cursor, limit: req.query.limit, type: req.query.type, actorId: req.query.actorId }, 'admin');
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Activity', page));
  });

  router.get('/api/admin/users/:userId/sessions', adminOnly, async (req, res) => {
    const sessions = await userSessions(deps, String(req.params.userId));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Sessions', { sessions }));
  });

  router.delete('/api/admin/users/:userId/sessions', adminChanging, async (req, res) => {
    await endUserSessions(deps, String(req.params.userId), requestContextWithActor(req, verifier));
    res.json(ok('Sessions ended'));
  });

  router.delete('/api/admin/users/:userId/sessions/:sessionId', adminChanging, async (req, res) => {
    await endUserSession(deps, String(req.params.userId), String(req.params.sessionId), requestContextWithActor(req, verifier));
    res.json(ok('Session signed out'));
  });

  router.get('/api/admin/users/:userId/identities', adminOnly, async (req, res) => {
    const identities = await userIdentities(deps, String(req.params.userId));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Identities', { identities }));
  });

  router.delete('/api/admin/users/:userId/identities/:provider', adminChanging, async (req, res) => {
    await unlinkUserIdentity(deps, String(req.params.userId), String(req.params.provider), requestContextWithActor(req, verifier));
    res.json(ok('Identity unlinked'));
  });

  router.get('/api/admin/admins', adminOnly, async (req, res) => {
    const page = await listAdmins(deps, { cursor: req.query.cursor, limit: req.query.limit });
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Admins', page));
  });

  // The deployment's log: every account's, filtered by kind, account, type or the admin who acted.
  router.get('/api/admin/activity', adminOnly, async (req, res) => {
    const kind = req.query.kind;
    if (kind !== undefined && kind !== 'user' && kind !== 'admin') throw AuthErrors.badActivityKind();
    const accountId = req.query.accountId;
    if (accountId !== undefined && (typeof accountId !== 'string' || !isAccountId(accountId))) throw AuthErrors.badUserId();
    const page = await readActivity(deps, { kind, accountId }, { cursor: req.query.cursor, limit: req.query.limit, type: req.query.type, actorId: req.query.actorId }, 'admin');
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Activity', page));
  });

  router.get('/api/admin/users/:userId/avatar', adminOnly, async (req, res) => {
    await sendAvatar(res, await readAvatar(deps, String(req.params.userId)));
  });

  router.get('/api/admin/desktop/releases', adminOnly, async (req, res) => {
    const releases = await listDesktopReleases(deps, req.get('authorization') as string, req.query.platform, requestContextWithActor(req, verifier));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Releases', { releases }));
  });

  router.post('/api/admin/desktop/releases', adminChanging, async (req, res) => {
    const release = await publishDesktopRelease(deps, req.get('authorization') as string, req.body, requestContextWithActor(req, verifier));
    res.status(201).json(ok('Release published', { release }));
  });

  router.delete('/api/admin/desktop/releases/:platform/:version', adminChanging, async (req, res) => {
    const release = { platform: String(req.params.platform), version: String(req.params.version) };
    await withdrawDesktopRelease(deps, req.get('authorization') as string, release, requestContextWithActor(req, verifier));
    res.json(ok('Release withdrawn'));
  });

  return router;
}
