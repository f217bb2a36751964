// This service as an OpenID provider, over HTTP: the provider's own routes (discovery, authorization,
// token, userinfo, revocation, introspection, logout), answered by oidc-provider as they come (its
// bodies are forms it parses itself), and the interaction the hosted sign-in page completes. The
// gateway forwards everything under /oidc/ with the provider's cookies (named oidc_*) and no other.
//
// The interaction, for a browser the provider sent to /oidc/interaction/<uid>:
//   GET  /oidc/interaction/<uid>        → 303 to the sign-in page of the app's kind, returning here
//   GET  /oidc/interaction/<uid>/about  → the app, what it asks, whether a fresh sign-in is needed
//   POST /oidc/interaction/<uid>/login  → with the page's access token (and {"consent":true} for an
//                                         app of another party the person has not allowed this yet, or that
//                                         asked prompt=consent): the grant, and where the browser goes on
//   POST /oidc/interaction/<uid>/abort  → the person said no: back to the app with access_denied
// Each is bound to the browser by the provider's interaction cookie; the access token is a header,
// never a cookie, so another site cannot make a browser approve.
import express, { type Request, type Response, type Router } from 'express';
import { ok, type AccessTokenVerifier } from '@acct/shared';
import { AuthErrors } from '../../errors';
import type Provider from 'oidc-provider';
import { approveAppSignIn, recordAppGrant } from '../../domain/apps/app-sign-in';
import type { AuthDeps } from '../../domain/ports';
import { appOf, interactionPath, OIDC_SCOPES, OPENID_PREFIX, OPENID_ROUTES, providerHandler, resourcesAsked } from '../../security/openid-provider';
import type { OpenIdResourceEntry } from '../../settings/openid-provider';
import { requestContext } from './request-context';
import { OPENID_PATHS } from '@acct/shared/routes';
import { enforceLimit } from '../../domain/shared/limits';
import type { Needs } from '../../domain/shared/ports';

/** The provider's routes (each with what follows it: /oidc/auth/<uid> resumes, /oidc/session/end/confirm…); any other path is 404 as everywhere. */
const PROVIDER_ROUTES = Object.values(OPENID_ROUTES).filter((route) => route.startsWith(`${OPENID_PREFIX}/`) || route === OPENID_ROUTES.code_verification);

/** Whether a path is one of the provider's own (not the interaction's, which is ours). */
export function isProviderPath(path: string): boolean {
  return path === OPENID_PATHS.discovery || PROVIDER_ROUTES.some((route) => path === route || path.startsWith(`${route}/`));
}

/** The requests that start a sign-in: each writes a record the provider keeps ten minutes, so each address has a budget of them. */
const STARTS = new Set<string>([OPENID_ROUTES.authorization, OPENID_ROUTES.device_authorization]);

/** The provider's routes, before any body parser: it reads its own. */
export function openIdProviderRoutes(deps: Needs<'rateLimits' | 'metrics'>, provider: Provider, issuer: string): express.RequestHandler {
  const handle = providerHandler(provider, issuer);
  return async (req, res, next) => {
    if (!isProviderPath(req.path)) return next();
    if (STARTS.has(req.path)) await enforceLimit(deps, 'openIdStartIp', requestContext(req).budget);
    handle(req, res);
  };
}

const interactionGone = AuthErrors.interactionExpired;

export function openIdInteractionRoutes(deps: AuthDeps, provider: Provider, settings: { verifier: AccessTokenVerifier; grantTtlMs: number; resources: OpenIdResourceEntry[] }): Router {
  const router = express.Router();

  const details = async (req: Request, res: Response) => {
    try {
      const interaction = await provider.interactionDetails(req, res);
      if (interaction.uid !== req.params.uid) throw interactionGone();
      return interaction;
    } catch (err) {
      // No interaction for this browser (no cookie, another browser's, ended or expired): the request
      // has ended. Anything else (a store that did not answer) is what it is: a 503, not a 404.
      if ((err as Error).name === 'SessionNotFound') throw interactionGone();
      throw err;
    }
  };
  const clientOf = async (clientId: unknown) => {
    const client = typeof clientId === 'string' ? await provider.Client.find(clientId) : undefined;
    if (!client) throw interactionGone();
    return client;
  };
  /** What the app asks, in the OpenID scopes it may be given (a resource server's are resourcesAsked's). */
  const asked = (requested: unknown, allowed: string | undefined) => {
    const may = new Set((allowed ?? OIDC_SCOPES.join(' ')).split(' '));
    return String(requested ?? '')
      .split(' ')
      .filter((scope) => may.has(scope));
  };
  const resourcesOf = (interaction: { params: Record<string, unknown> }, appId: string) => resourcesAsked(settings.resources, appId, interaction.params.resource, interaction.params.scope);
  /** The app asked for a sign-in now (`prompt=login`, or a `max_age` the session is past). */
  const freshLoginAsked = (prompt: { name: string; reasons: string[] }) => prompt.name === 'login' && prompt.reasons.some((r) => r === 'login_prompt' || r === 'max_age');

  router.get(`${OPENID_PREFIX}/interaction/:uid`, async (req, res) => {
    const interaction = await details(req, res);
    const app = appOf(await clientOf(interaction.params.client_id));
    const page = app.kind === 'admin' ? '/admin/login' : '/login';
    res.redirect(303, `${page}?return_to=${encodeURIComponent(interactionPath(interaction.uid))}`);
  });

  router.get(`${OPENID_PREFIX}/interaction/:uid/about`, async (req, res) => {
    const interaction = await details(req, res);
    const client = await clientOf(interaction.params.client_id);
    const app = appOf(client);
    res.setHeader('Cache-Control', 'no-store');
    res.json(
      ok('Sign-in request', {
        app: { id: app.id, name: app.name, firstParty: app.firstParty },
        kind: app.kind,
        scopes: asked(interaction.params.scope, client.scope),
        resources: resourcesOf(interaction, app.id).map((r) => ({ name: r.name, scopes: r.scopes })),
        freshLogin: freshLoginAsked(interaction.prompt),
      }),
    );
  });

  router.post(`${OPENID_PREFIX}/interaction/:uid/login`, async (req, res) => {
    const interaction = await details(req, res);
    const client = await clientOf(interaction.params.client_id);
    const app = appOf(client);
    const scopes = asked(interaction.params.scope, client.scope);
    const resources = resourcesOf(interaction, app.id);
    const ctx = requestContext(req);
    const consent = {
      asked: [...scopes, ...resources.flatMap((r) => r.scopes.map((s) => `${r.name}:${s}`))],
      given: (req.body as { consent?: unknown } | undefined)?.consent === true,
      askAgain: interaction.prompt.reasons.includes('consent_prompt'),
    };
    const approval = await approveAppSignIn(deps, settings.verifier.verifyHeader(req.get('authorization')), app, { freshLogin: freshLoginAsked(interaction.prompt), consent }, ctx);
    const grant = new provider.Grant({ accountId: approval.accountId, clientId: app.id });
    grant.addOIDCScope(scopes.join(' '));
    // The product API's tokens, for the product's own apps alone (the provider refuses any other resource).
    if (app.firstParty) grant.addResourceScope(`${provider.issuer}/api`, 'api');
    // Another resource server's scopes (RFC 8707), as asked, where the app may have them.
    for (const resource of resources) grant.addResourceScope(resource.indicator, resource.scopes.join(' '));
    const grantId = await grant.save();
    await recordAppGrant(deps, grantId, app, approval, ctx, settings.grantTtlMs);
    const redirectTo = await provider.interactionResult(req, res, { login: { accountId: approval.accountId, ts: approval.authTime }, consent: { grantId } }, { mergeWithLastSubmission: false });
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Signed in to the app', { redirectTo }));
  });

  router.post(`${OPENID_PREFIX}/interaction/:uid/abort`, async (req, res) => {
    await details(req, res);
    const redirectTo = await provider.interactionResult(req, res, { error: 'access_denied', error_description: 'The person declined the sign-in' }, { mergeWithLastSubmission: false });
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Sign-in declined', { redirectTo }));
  });
  return router;
}
