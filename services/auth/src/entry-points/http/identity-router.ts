// Sign-in with identity providers (OpenID Connect), for either kind: the providers, the redirect to
// one and its callback, and a signed-in account's linked identities. The flow cookie that binds a callback
// to the browser that started it travels in internal headers; the gateway alone speaks cookies.
import { Router, type Request, type Response } from 'express';
import { ACCOUNT_KINDS, InternalHeaders, ok, type AccessTokenVerifier } from '@acct/shared';
import { requireSession } from '../../domain/access';
import { completeCallback, listIdentities, listProviders, startLink, startSignIn, unlinkIdentity, type StartedFlow } from '../../domain/identity-sign-in';
import type { AuthDeps } from '../../domain/ports';
import { requestContext } from './request-context';
import { sendRefreshToken } from './refresh-token-headers';

export function identityRouter(deps: AuthDeps, verifier: AccessTokenVerifier, settings: { refreshCookieMaxAgeSeconds: number }): Router {
  const router = Router();
  const flowMaxAge = String(Math.ceil(deps.policy.identity.flowTtlMs / 1000));
  const setFlowCookie = (res: Response, flow: StartedFlow) =>
    res.setHeader(InternalHeaders.setIdentityFlow, flow.binding).setHeader(InternalHeaders.identityFlowMaxAge, flowMaxAge).setHeader('Cache-Control', 'no-store');
  const param = (req: Request) => String(req.params.provider);

  router.get('/api/auth/identity-providers', (_req, res) => {
    res.json(ok('Identity providers', { providers: listProviders(deps) }));
  });

  for (const kind of ACCOUNT_KINDS) {
    const base = `/api/auth/${kind}`;
    const caller = (req: Request) => requireSession(deps, verifier.verifyHeader(req.get('authorization')), kind);

    router.get(`${base}/oidc/:provider/start`, async (req, res) => {
      const flow = await startSignIn(deps, kind, param(req), req.query.returnTo);
      setFlowCookie(res, flow).redirect(302, flow.authorizationUrl);
    });

    router.get(`${base}/oidc/:provider/callback`, async (req, res) => {
      const query = new URL(req.originalUrl, 'http://callback').searchParams;
      const outcome = await completeCallback(deps, kind, param(req), query, req.get(InternalHeaders.identityFlow) || undefined, requestContext(req));
      // The cookie goes with its flow only: a callback of another flow (a leaked URL, a forged state) leaves it to the flow it belongs to.
      if (outcome.flowUsed) res.setHeader(InternalHeaders.clearIdentityFlow, '1');
      res.setHeader('Cache-Control', 'no-store');
      if (outcome.refreshToken) sendRefreshToken(res, outcome.refreshToken, settings.refreshCookieMaxAgeSeconds);
      res.redirect(302, outcome.location);
    });

    router.get(`${base}/identities`, async (req, res) => {
      const answer = await listIdentities(deps, await caller(req));
      res.json(ok('Identities', answer));
    });

    router.post(`${base}/identities/:provider`, async (req, res) => {
      const flow = await startLink(deps, await caller(req), param(req), req.body);
      setFlowCookie(res, flow).json(ok('Continue at the identity provider', { authorizationUrl: flow.authorizationUrl }));
    });

    router.delete(`${base}/identities/:provider`, async (req, res) => {
      await unlinkIdentity(deps, await caller(req), param(req), requestContext(req));
      res.json(ok('Identity unlinked'));
    });
  }

  return router;
}
