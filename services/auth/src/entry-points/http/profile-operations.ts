// The signed-in user's own operations: profile (read, change the name), data, avatar (read, replace,
// remove), sessions, activity. User sessions only,
// still alive: the route table says so, and the dispatcher (operations.ts) holds them to it.
import { ok } from '@acct/shared';
import type { AuthDeps } from '../../domain/ports';
import type { Operations } from '@acct/shared/http';
import { exportOwnData, ownAvatar, ownProfile, ownSessions, removeOwnAvatar, replaceOwnAvatar, signOutOthers, signOutSession, updateOwnProfile } from '../../domain/account/profile';
import { receiveAvatar } from './receive-avatar';
import { readActivity } from '../../domain/shared/activity';
import { requestContext } from './request-context';
import { sendAvatar } from './send-avatar';

export function profileOperations(router: Operations, deps: AuthDeps): void {
  router.session('get', '/api/auth/user/me', async (_req, res, user) => {
    const profile = await ownProfile(deps, user);
    res.json(ok('User profile', { user: profile }));
  });

  router.session('put', '/api/auth/user/me', async (req, res, user) => {
    const profile = await updateOwnProfile(deps, user, req.body, requestContext(req));
    res.json(ok('Profile updated', { user: profile }));
  });

  router.session('put', '/api/auth/user/me/avatar', async (req, res, user) => {
    await receiveAvatar(req, res);
    const profile = await replaceOwnAvatar(deps, user, req.file, requestContext(req));
    res.json(ok('Avatar updated successfully', { user: profile }));
  });

  router.session('delete', '/api/auth/user/me/avatar', async (req, res, user) => {
    const profile = await removeOwnAvatar(deps, user, requestContext(req));
    res.json(ok('Avatar removed', { user: profile }));
  });

  router.session('get', '/api/auth/user/me/export', async (req, res, user) => {
    const data = await exportOwnData(deps, user, req.get('authorization') as string, requestContext(req));
    res.json(ok('Your data', data));
  });

  router.session('get', '/api/auth/user/me/avatar', async (_req, res, user) => {
    await sendAvatar(res, await ownAvatar(deps, user));
  });

  router.session('get', '/api/auth/user/sessions', async (_req, res, user) => {
    const sessions = await ownSessions(deps, user);
    res.json(ok('Sessions', { sessions }));
  });

  router.session('get', '/api/auth/user/activity', async (req, res, caller) => {
    const page = await readActivity(deps, { kind: 'user', accountId: caller.sub }, { cursor: req.query.cursor, limit: req.query.limit, type: req.query.type }, 'owner');
    res.json(ok('Activity', page));
  });

  router.session('post', '/api/auth/user/sessions/sign-out-others', async (_req, res, user) => {
    const signedOut = await signOutOthers(deps, user);
    res.json(ok('Other sessions signed out', { signedOut }));
  });

  router.session('delete', '/api/auth/user/sessions/:sessionId', async (_req, res, user, params) => {
    await signOutSession(deps, user, params.sessionId);
    res.json(ok('Session signed out'));
  });
}
