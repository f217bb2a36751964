// The auth service's internal HTTP app (reached only through the gateway).
import express, { type Express } from 'express';
import { errorHandler, httpMetricsMiddleware, jsonBody, notFoundHandler, requestScope } from '@acct/shared/http';
import type { AuthDeps } from './domain/ports';
import { accountOperations } from './entry-points/http/account-router';
import { Operations } from './entry-points/http/operations';
import type { HttpSettings } from './entry-points/http/http-settings';
import { adminUsersRouter } from './entry-points/http/admin-users-router';
import { factorsRouter } from './entry-points/http/factors-router';
import { identityRouter } from './entry-points/http/identity-router';
import { profileOperations } from './entry-points/http/profile-router';
import { traceIncoming } from '@acct/shared/tracing';

export function createApp(deps: AuthDeps, settings: HttpSettings): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(traceIncoming('auth'));
  app.use(requestScope);
  app.use(httpMetricsMiddleware(settings.http));
  app.use(jsonBody(settings.bodyLimit));
  // The operations dispatched from the route table (operations.ts); the routers below are next.
  const operations = new Operations(deps, settings.verifier);
  accountOperations(operations, deps, settings);
  profileOperations(operations, deps);
  app.use(operations.dispatcher());
  // Before the admin user routes: `/api/admin/users/:userId/factors` is its own route, not a user id's subpath.
  app.use(factorsRouter(deps, settings.verifier, settings));
  app.use(identityRouter(deps, settings.verifier, settings));
  app.use(adminUsersRouter(deps, settings.verifier));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
