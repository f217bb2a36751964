// Sign-in with identity providers (OpenID Connect), for either kind: the providers, the redirect to
// one and its callback, and a signed-in account's linked identities. The flow cookie that binds a callback
// to the browser that started it travels in internal headers; the gateway alone speaks cookies.
import type { Response } from 'express';
import { ACCOUNT_KINDS, InternalHeaders, ok } from '@acct/shared';
import { completeCallback, listIdentities, listProviders, startLink, startSignIn, unlinkIdentity, type StartedFlow } from '../../domain/identity/sign-in';
import type { AuthDeps } from '../../domain/ports';
import { requestContext } from './request-context';
import { sendRefreshToken } from './refresh-token-headers';
import type { Operations } from '@acct/shared/http';

export function identityOperations(router: Operations, deps: AuthDeps, settings: { refreshCookieMaxAgeSeconds: number }): void {
  const flowMaxAge = String(Math.ceil(deps.policy.identity.flowTtlMs / 1000));
  const setFlowCookie = (res: Response, flow: StartedFlow) =>
    res.setHeader(InternalHeaders.setIdentityFlow, flow.binding).setHeader(InternalHeaders.identityFlowMaxAge, flowMaxAge);

  router.open('get', '/api/auth/identity-providers', async (_req, res) => {
    res.json(ok('Identity providers', { providers: listProviders(deps) }));
  });

  for (const kind of ACCOUNT_KINDS) {
    const base = `/api/auth/${kind}`;

    router.open('get', `${base}/oidc/:provider/start`, async (req, res, params) => {
      const flow = await startSignIn(deps, kind, params.provider, req.query.returnTo);
      setFlowCookie(res, flow).redirect(302, flow.authorizationUrl);
    });

    router.open('get', `${base}/oidc/:provider/callback`, async (req, res, params) => {
      const query = new URL(req.originalUrl, 'http://callback').searchParams;
      const outcome = await completeCallback(deps, kind, params.provider, query, req.get(InternalHeaders.identityFlow) || undefined, requestContext(req));
      // The cookie goes with its flow only: a callback of another flow (a leaked URL, a forged state) leaves it to the flow it belongs to.
      if (outcome.flowUsed) res.setHeader(InternalHeaders.clearIdentityFlow, '1');
      if (outcome.refreshToken) sendRefreshToken(res, outcome.refreshToken, settings.refreshCookieMaxAgeSeconds);
      res.redirect(302, outcome.location);
    });

    router.session('get', `${base}/identities`, async (_req, res, caller) => {
      const answer = await listIdentities(deps, caller);
      res.json(ok('Identities', answer));
    });

    router.session('post', `${base}/identities/:provider`, async (req, res, caller, params) => {
      const flow = await startLink(deps, caller, params.provider, req.body);
      setFlowCookie(res, flow).json(ok('Continue at the identity provider', { authorizationUrl: flow.authorizationUrl }));
    });

    router.session('delete', `${base}/identities/:provider`, async (req, res, caller, params) => {
      await unlinkIdentity(deps, caller, params.provider, requestContext(req));
      res.json(ok('Identity unlinked'));
    });
  }
}
