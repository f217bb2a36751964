// Sign-in with identity providers (OpenID Connect), for either kind: the providers, the redirect to
// one and its callback, and a signed-in account's linked identities. The flow cookie that binds a callback
// to the browser that started it travels in internal headers; the gateway alone speaks cookies.
import type { Response } from 'express';
import { InternalHeaders, ok } from '@acct/shared';
import { completeCallback, listIdentities, listProviders, startLink, startSignIn, unlinkIdentity, type StartedFlow } from '../../domain/identity/sign-in';
import type { AuthDeps } from '../../domain/ports';
import { requestContext } from './request-context';
import { sendRefreshToken } from './refresh-token-headers';
import { forEachKind, type Handlers, type OpenHandler, type SessionHandler } from '@acct/shared/http';

export function identityOperations(deps: AuthDeps, settings: { refreshCookieMaxAgeSeconds: number }) {
  const flowMaxAge = String(Math.ceil(deps.policy.identity.flowTtlMs / 1000));
  const setFlowCookie = (res: Response, flow: StartedFlow) =>
    res.setHeader(InternalHeaders.setBrowserFlow, flow.binding).setHeader(InternalHeaders.browserFlowMaxAge, flowMaxAge);

  return {
    listIdentityProviders: async (_req, res) => {
      res.json(ok('Identity providers', { providers: listProviders(deps) }));
    },

    ...forEachKind({ user: 'startIdentitySignIn', admin: 'startAdminIdentitySignIn' }, (kind): OpenHandler => async (req, res, params) => {
      const flow = await startSignIn(deps, kind, params.provider, req.query.returnTo);
      setFlowCookie(res, flow).redirect(302, flow.authorizationUrl);
    }),

    ...forEachKind({ user: 'completeIdentitySignIn', admin: 'completeAdminIdentitySignIn' }, (kind): OpenHandler => async (req, res, params) => {
      const query = new URL(req.originalUrl, 'http://callback').searchParams;
      const outcome = await completeCallback(deps, kind, params.provider, query, req.get(InternalHeaders.browserFlow) || undefined, requestContext(req));
      // The cookie goes with its flow only: a callback of another flow (a leaked URL, a forged state) leaves it to the flow it belongs to.
      if (outcome.flowUsed) res.setHeader(InternalHeaders.clearBrowserFlow, '1');
      if (outcome.refreshToken) sendRefreshToken(res, outcome.refreshToken, settings.refreshCookieMaxAgeSeconds);
      res.redirect(302, outcome.location);
    }),

    ...forEachKind({ user: 'listOwnIdentities', admin: 'listOwnAdminIdentities' }, (): SessionHandler => async (_req, res, caller) => {
      const answer = await listIdentities(deps, caller);
      res.json(ok('Identities', answer));
    }),

    ...forEachKind({ user: 'startIdentityLink', admin: 'startAdminIdentityLink' }, (): SessionHandler => async (req, res, caller, params) => {
      const flow = await startLink(deps, caller, params.provider, req.body);
      setFlowCookie(res, flow).json(ok('Continue at the identity provider', { authorizationUrl: flow.authorizationUrl }));
    }),

    ...forEachKind({ user: 'unlinkIdentity', admin: 'unlinkAdminIdentity' }, (): SessionHandler => async (req, res, caller, params) => {
      await unlinkIdentity(deps, caller, params.provider, requestContext(req));
      res.json(ok('Identity unlinked'));
    }),
  } satisfies Partial<Handlers<'auth'>>;
}
