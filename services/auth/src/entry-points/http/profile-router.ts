// The signed-in user's own routes: profile, avatar, sessions, activity. User sessions only, still alive.
import { Router, type Request } from 'express';
import { ok, type AccessTokenVerifier } from '@acct/shared';
import type { AuthDeps } from '../../domain/ports';
import { requireSession } from '../../domain/access';
import { exportOwnData, ownAvatar, ownProfile, ownSessions, signOutOthers, signOutSession } from '../../domain/profile';
import { readActivity } from '../../domain/activity';
import { requestContext } from './request-context';
import { sendAvatar } from './send-avatar';

export function profileRouter(deps: AuthDeps, verifier: AccessTokenVerifier): Router {
  const router = Router();
  const user = (req: Request) => requireSession(deps, verifier.verifyHeader(req.get('authorization')), 'user');

  router.get('/api/auth/user/me', async (req, res) => {
    const profile = await ownProfile(deps, await user(req));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('User profile', { user: profile }));
  });

  router.get('/api/auth/user/me/export', async (req, res) => {
    const data = await exportOwnData(deps, await user(req), req.get('authorization') as string, requestContext(req));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Your data', data));
  });

  router.get('/api/auth/user/me/avatar', async (req, res) => {
    await sendAvatar(res, await ownAvatar(deps, await user(req)));
  });

  router.get('/api/auth/user/sessions', async (req, res) => {
    const sessions = await ownSessions(deps, await user(req));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Sessions', { sessions }));
  });

  router.get('/api/auth/user/activity', async (req, res) => {
    const caller = await user(req);
    const page = await readActivity(deps, { kind: 'user', accountId: caller.sub }, { cursor: req.query.cursor, limit: req.query.limit, type: req.query.type }, 'owner');
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Activity', page));
  });

  router.post('/api/auth/user/sessions/sign-out-others', async (req, res) => {
    const signedOut = await signOutOthers(deps, await user(req));
    res.json(ok('Other sessions signed out', { signedOut }));
  });

  router.delete('/api/auth/user/sessions/:sessionId', async (req, res) => {
    await signOutSession(deps, await user(req), String(req.params.sessionId));
    res.json(ok('Session signed out'));
  });

  return router;
}
