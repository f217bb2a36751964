// Admin user routes: list and read users, update a user, replace and read their avatar, a user's
// sessions, identities and activity, the deployment's activity, the admins and the desktop releases
// (kept by desktop, asked with the admin's own token). Admin sessions only (the route table says so;
// the dispatcher, operations.ts, holds them to it); an act that cannot be undone asks for the admin's
// recent proof (domain/admin/console.ts).
import { ok } from '@acct/shared';
import { getUser, listUsers, updateUser } from '../../domain/admin/users';
import { assertUserId } from '../../domain/shared/account';
import { readAvatar, replaceAvatar } from '../../domain/account/avatar';
import { deleteUser } from '../../domain/account/deletion';
import { isAccountId } from '../../domain/shared/account';
import { readActivity } from '../../domain/shared/activity';
import { endUserSession, endUserSessions, listAdmins, unlinkUserIdentity, userIdentities, userSessions } from '../../domain/admin/console';
import { listDesktopReleases, publishDesktopRelease, withdrawDesktopRelease } from '../../domain/admin/desktop-releases';
import type { AuthDeps } from '../../domain/ports';
import { AuthErrors } from '../../errors';
import { requestContextOf } from './request-context';
import { receiveAvatar } from './receive-avatar';
import { sendAvatar } from './send-avatar';
import type { Handlers } from '@acct/shared/http';

export function adminUsersOperations(deps: AuthDeps) {
  // Reads, and changes to another account, whose rows ask the store too and a recent proof (libs/shared/src/routes).
  return {
    listUsers: async (req, res) => {
      const page = await listUsers(deps, { query: req.query.query, cursor: req.query.cursor, limit: req.query.limit, emailVerified: req.query.emailVerified, disabled: req.query.disabled });
      res.json(ok('Users', page));
    },

    getUser: async (req, res, _admin, params) => {
      const user = await getUser(deps, params.userId);
      res.json(ok('User', { user }));
    },

    updateUser: async (req, res, admin, params) => {
      const user = await updateUser(deps, params.userId, req.body, requestContextOf(req, admin));
      res.json(ok('User updated successfully', { user }));
    },

    deleteUser: async (req, res, admin, params) => {
      await deleteUser(deps, params.userId, requestContextOf(req, admin));
      res.json(ok('User deleted'));
    },

    replaceAvatar: async (req, res, admin, params) => {
      assertUserId(params.userId);
      await receiveAvatar(req, res);
      const user = await replaceAvatar(deps, params.userId, req.file, requestContextOf(req, admin));
      res.json(ok('Avatar updated successfully', { user }));
    },

    listUserActivity: async (req, res, _admin, params) => {
      assertUserId(params.userId);
      const page = await readActivity(deps, { kind: 'user', accountId: params.userId }, { cursor: req.query.cursor, limit: req.query.limit, type: req.query.type, actorId: req.query.actorId }, 'admin');
      res.json(ok('Activity', page));
    },

    listUserSessions: async (req, res, _admin, params) => {
      const sessions = await userSessions(deps, params.userId);
      res.json(ok('Sessions', { sessions }));
    },

    endUserSessions: async (req, res, admin, params) => {
      await endUserSessions(deps, params.userId, requestContextOf(req, admin));
      res.json(ok('Sessions ended'));
    },

    endUserSession: async (req, res, admin, params) => {
      await endUserSession(deps, params.userId, params.sessionId, requestContextOf(req, admin));
      res.json(ok('Session signed out'));
    },

    listUserIdentities: async (req, res, _admin, params) => {
      const identities = await userIdentities(deps, params.userId);
      res.json(ok('Identities', { identities }));
    },

    unlinkUserIdentity: async (req, res, admin, params) => {
      await unlinkUserIdentity(deps, params.userId, params.provider, requestContextOf(req, admin));
      res.json(ok('Identity unlinked'));
    },

    listAdmins: async (req, res) => {
      const page = await listAdmins(deps, { cursor: req.query.cursor, limit: req.query.limit });
      res.json(ok('Admins', page));
    },

    // The deployment's log: every account's, filtered by kind, account, type or the admin who acted.
    listActivity: async (req, res) => {
      const kind = req.query.kind;
      if (kind !== undefined && kind !== 'user' && kind !== 'admin') throw AuthErrors.badActivityKind();
      const accountId = req.query.accountId;
      if (accountId !== undefined && (typeof accountId !== 'string' || !isAccountId(accountId))) throw AuthErrors.badUserId();
      const page = await readActivity(deps, { kind, accountId }, { cursor: req.query.cursor, limit: req.query.limit, type: req.query.type, actorId: req.query.actorId }, 'admin');
      res.json(ok('Activity', page));
    },

    getAvatar: async (req, res, _admin, params) => {
      await sendAvatar(res, await readAvatar(deps, params.userId));
    },

    listDesktopReleases: async (req, res, admin) => {
      const releases = await listDesktopReleases(deps, req.get('authorization') as string, req.query.platform, requestContextOf(req, admin));
      res.json(ok('Releases', { releases }));
    },

    publishDesktopRelease: async (req, res, admin) => {
      const release = await publishDesktopRelease(deps, req.get('authorization') as string, req.body, requestContextOf(req, admin));
      res.status(201).json(ok('Release published', { release }));
    },

    withdrawDesktopRelease: async (req, res, admin, params) => {
      const release = { platform: params.platform, version: params.version };
      await withdrawDesktopRelease(deps, req.get('authorization') as string, release, requestContextOf(req, admin));
      res.json(ok('Release withdrawn'));
    },
  } satisfies Partial<Handlers<'auth'>>;
}
