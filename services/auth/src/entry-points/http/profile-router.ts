// The signed-in user's own routes: profile, avatar, sessions. User sessions only, still alive.
import { Router, type Request } from 'express';
import { ok, type AccessTokenVerifier } from '@acct/shared';
import type { AuthPorts } from '../../domain/ports';
import { ownAvatar, ownProfile, ownSessions, requireUserSession, signOutOthers, signOutSession } from '../../domain/profile';
import { sendAvatar } from './send-avatar';

export function profileRouter(domain: AuthPorts, verifier: AccessTokenVerifier): Router {
  const router = Router();
  const user = (req: Request) => requireUserSession(domain, verifier.verifyHeader(req.get('authorization')));

  router.get('/api/auth/user/me', async (req, res) => {
    const profile = await ownProfile(domain, await user(req));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('User profile', { user: profile }));
  });

  router.get('/api/auth/user/me/avatar', async (req, res) => {
    await sendAvatar(res, await ownAvatar(domain, await user(req)));
  });

  router.get('/api/auth/user/sessions', async (req, res) => {
    const sessions = await ownSessions(domain, await user(req));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Sessions', { sessions }));
  });

  router.post('/api/auth/user/sessions/sign-out-others', async (req, res) => {
    const signedOut = await signOutOthers(domain, await user(req));
    res.json(ok('Other sessions signed out', { signedOut }));
  });

  router.delete('/api/auth/user/sessions/:sessionId', async (req, res) => {
    await signOutSession(domain, await user(req), String(req.params.sessionId));
    res.json(ok('Session signed out'));
  });

  return router;
}
