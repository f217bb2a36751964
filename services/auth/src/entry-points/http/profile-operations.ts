// The signed-in user's own operations: profile (read, change the name), data, avatar (read, replace,
// remove), sessions, activity. User sessions only,
// still alive: the route table says so, and the dispatcher (operations.ts) holds them to it.
import { ok } from '@acct/shared';
import type { AuthDeps } from '../../domain/ports';
import type { Handlers } from '@acct/shared/http';
import { exportOwnData, ownAvatar, ownProfile, ownSessions, removeOwnAvatar, replaceOwnAvatar, signOutOthers, signOutSession, updateOwnProfile } from '../../domain/account/profile';
import { receiveAvatar } from './receive-avatar';
import { readActivity } from '../../domain/shared/activity';
import { requestContext, requestContextOf } from './request-context';
import { appsWithAccess, revokeAppAccess } from '../../domain/apps/apps-with-access';
import { sendAvatar } from './send-avatar';

export function profileOperations(deps: AuthDeps) {
  return {
    getOwnProfile: async (_req, res, user) => {
      const profile = await ownProfile(deps, user);
      res.json(ok('User profile', { user: profile }));
    },

    updateOwnProfile: async (req, res, user) => {
      const profile = await updateOwnProfile(deps, user, req.body, requestContext(req));
      res.json(ok('Profile updated', { user: profile }));
    },

    replaceOwnAvatar: async (req, res, user) => {
      await receiveAvatar(req, res);
      const profile = await replaceOwnAvatar(deps, user, req.file, requestContext(req));
      res.json(ok('Avatar updated successfully', { user: profile }));
    },

    removeOwnAvatar: async (req, res, user) => {
      const profile = await removeOwnAvatar(deps, user, requestContext(req));
      res.json(ok('Avatar removed', { user: profile }));
    },

    exportOwnData: async (req, res, user) => {
      const data = await exportOwnData(deps, user, req.get('authorization') as string, requestContext(req));
      res.json(ok('Your data', data));
    },

    getOwnAvatar: async (_req, res, user) => {
      await sendAvatar(res, await ownAvatar(deps, user));
    },

    listOwnSessions: async (_req, res, user) => {
      const sessions = await ownSessions(deps, user);
      res.json(ok('Sessions', { sessions }));
    },

    listOwnActivity: async (req, res, caller) => {
      const page = await readActivity(deps, { kind: 'user', accountId: caller.sub }, { cursor: req.query.cursor, limit: req.query.limit, type: req.query.type }, 'owner');
      res.json(ok('Activity', page));
    },

    signOutOtherSessions: async (_req, res, user) => {
      const signedOut = await signOutOthers(deps, user);
      res.json(ok('Other sessions signed out', { signedOut }));
    },

    signOutSession: async (_req, res, user, params) => {
      await signOutSession(deps, user, params.sessionId);
      res.json(ok('Session signed out'));
    },

    listOwnApps: async (_req, res, user) => {
      res.json(ok('Apps with access', { apps: await appsWithAccess(deps, user) }));
    },

    revokeOwnApp: async (req, res, user, params) => {
      await revokeAppAccess(deps, user, params.appId, requestContextOf(req, user));
      res.json(ok('Access taken back'));
    },
  } satisfies Partial<Handlers<'auth'>>;
}
