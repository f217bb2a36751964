// Second factors: what an account (either kind) does with its own, and an admin's view and reset of
// a user's. Sessions of the route's kind only, still alive.
import { Router, type Request } from 'express';
import { ACCOUNT_KINDS, ok, type AccessTokenVerifier } from '@acct/shared';
import { requireSession } from '../../domain/access';
import { assertUserId } from '../../domain/admin-users';
import {
  confirmAuthenticator,
  listOwnFactors,
  passkeyRegistrationOptions,
  reauthenticate,
  regenerateRecoveryCodes,
  registerPasskey,
  removeAuthenticator,
  removePasskey,
  resetUserFactors,
  startAuthenticator,
  userFactorSummary,
} from '../../domain/factors';
import type { AuthDeps } from '../../domain/ports';
import { requestContext as ctx, requestContextWithActor, requestContextWithSignal } from './request-context';


export function factorsRouter(deps: AuthDeps, verifier: AccessTokenVerifier, settings: { stepUpSeconds: number }): Router {
  const router = Router();
  const noStore = { 'Cache-Control': 'no-store' };

  for (const kind of ACCOUNT_KINDS) {
    const base = `/api/auth/${kind}`;
    const caller = (req: Request) => requireSession(deps, verifier.verifyHeader(req.get('authorization')), kind);

    router.post(`${base}/reauthenticate`, async (req, res) => {
      await reauthenticate(deps, await caller(req), req.body, requestContextWithSignal(req));
      res.json(ok('Reauthenticated', { expiresIn: settings.stepUpSeconds }));
    });

    router.get(`${base}/factors`, async (req, res) => {
      const factors = await listOwnFactors(deps, await caller(req));
      res.set(noStore).json(ok('Factors', { factors }));
    });

    router.post(`${base}/factors/totp`, async (req, res) => {
      const enrolment = await startAuthenticator(deps, await caller(req));
      res.set(noStore).json(ok('Scan the QR code with an authenticator app, then confirm a code', enrolment));
    });

    router.post(`${base}/factors/totp/confirm`, async (req, res) => {
      const confirmed = await confirmAuthenticator(deps, await caller(req), req.body, ctx(req));
      res.set(noStore).json(ok('Authenticator app enabled', confirmed));
    });

    router.delete(`${base}/factors/totp`, async (req, res) => {
      const signedOut = await removeAuthenticator(deps, await caller(req), ctx(req));
      res.json(ok('Authenticator app removed', { signedOut }));
    });

    router.post(`${base}/factors/recovery-codes`, async (req, res) => {
      const recoveryCodes = await regenerateRecoveryCodes(deps, await caller(req), ctx(req));
      res.set(noStore).json(ok('Recovery codes replaced', { recoveryCodes }));
    });

    router.post(`${base}/factors/passkeys/options`, async (req, res) => {
      const options = await passkeyRegistrationOptions(deps, await caller(req));
      res.set(noStore).json(ok('Passkey registration options', { options }));
    });

    router.post(`${base}/factors/passkeys`, async (req, res) => {
      const added = await registerPasskey(deps, await caller(req), req.body, ctx(req));
      res.status(201).set(noStore).json(ok('Passkey added', added));
    });

    router.delete(`${base}/factors/passkeys/:passkeyId`, async (req, res) => {
      const signedOut = await removePasskey(deps, await caller(req), String(req.params.passkeyId), ctx(req));
      res.json(ok('Passkey removed', { signedOut }));
    });
  }

  const admin = (req: Request, fresh: boolean) => requireSession(deps, verifier.verifyHeader(req.get('authorization')), 'admin', { fresh });

  router.get('/api/admin/users/:userId/factors', async (req, res) => {
    await admin(req, false);
    assertUserId(String(req.params.userId));
    const factors = await userFactorSummary(deps, String(req.params.userId));
    res.set(noStore).json(ok('User factors', { factors }));
  });

  // Changes another account: read against the store too (access.ts says why).
  router.delete('/api/admin/users/:userId/factors', async (req, res) => {
    await admin(req, true);
    assertUserId(String(req.params.userId));
    // The reset is in the user's history with the admin who made it.
    const removed = await resetUserFactors(deps, String(req.params.userId), requestContextWithActor(req, verifier));
    res.json(ok('User factors reset', { removed }));
  });

  return router;
}
