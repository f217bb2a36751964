// The auth service's internal HTTP app (reached only through the gateway).
import express, { type Express } from 'express';
import type { AccessTokenVerifier, HttpMetrics } from '@acct/shared';
import { errorHandler, httpMetricsMiddleware, jsonBody, notFoundHandler } from '@acct/shared/http';
import type { AuthPorts } from './domain/ports';
import { accountRouter } from './entry-points/http/account-router';
import { adminUsersRouter } from './entry-points/http/admin-users-router';
import { profileRouter } from './entry-points/http/profile-router';

export interface HttpSettings {
  verifier: AccessTokenVerifier;
  /** The largest JSON body, in bytes. */
  bodyLimit: number;
  /** How long the gateway keeps a refresh cookie: the session's idle lifetime. */
  refreshCookieMaxAgeSeconds: number;
  http: HttpMetrics;
}

export function createApp(ports: AuthPorts, settings: HttpSettings): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(httpMetricsMiddleware(settings.http));
  app.use(jsonBody(settings.bodyLimit));
  app.use(accountRouter(ports, settings));
  app.use(adminUsersRouter(ports, settings.verifier));
  app.use(profileRouter(ports, settings.verifier));
  app.use(notFoundHandler);
  app.use(errorHandler(ports.logger));
  return app;
}
