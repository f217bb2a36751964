// The auth service's internal HTTP app (reached only through the gateway).
import express, { type Express } from 'express';
import { Operations, errorHandler, httpMetricsMiddleware, jsonBody, notFoundHandler, requestScope } from '@acct/shared/http';
import type { AuthDeps } from './domain/ports';
import { requireSession } from './domain/shared/access';
import { assertHuman } from './domain/shared/bot-check';
import { requestContext } from './entry-points/http/request-context';
import { accountOperations } from './entry-points/http/account-operations';
import type { HttpSettings } from './entry-points/http/http-settings';
import { adminUsersOperations } from './entry-points/http/admin-users-operations';
import { adminAppsOperations } from './entry-points/http/admin-apps-operations';
import { factorsOperations } from './entry-points/http/factors-operations';
import { identityOperations } from './entry-points/http/identity-operations';
import { profileOperations } from './entry-points/http/profile-operations';
import { traceIncoming } from '@acct/shared/tracing';
import { openIdInteractionRoutes, openIdProviderRoutes } from './entry-points/http/openid-operations';

export function createApp(deps: AuthDeps, settings: HttpSettings): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(traceIncoming('auth'));
  app.use(requestScope);
  app.use(httpMetricsMiddleware(settings.http));
  // The OpenID provider's routes read their own bodies (forms), so they come before the JSON parser.
  if (settings.openid) app.use(openIdProviderRoutes(deps, settings.openid.provider, settings.openid.issuer));
  app.use(jsonBody(settings.bodyLimit));
  if (settings.openid) app.use(openIdInteractionRoutes(deps, settings.openid.provider, { verifier: settings.verifier, grantTtlMs: settings.openid.grantTtlMs, resources: settings.openid.resources }));
  // Every route auth answers, dispatched from the route table (operations.ts).
  const operations = new Operations(
    'auth',
    (kind, authorization, options) => requireSession(deps, settings.verifier.verifyHeader(authorization), kind, options),
    (req) => assertHuman(deps, req.body, requestContext(req)),
  );
  operations.bind({
    ...accountOperations(deps, settings),
    ...profileOperations(deps),
    ...factorsOperations(deps, settings),
    ...identityOperations(deps, settings),
    ...adminUsersOperations(deps),
    ...adminAppsOperations(deps),
  });
  app.use(operations.dispatcher());
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
