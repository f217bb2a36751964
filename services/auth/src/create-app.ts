// The auth service's internal HTTP app (reached only through the gateway).
import express, { type Express } from 'express';
import { errorHandler, jsonBody, notFoundHandler } from '@acct/shared';
import type { AuthDomain } from './domain/deps';
import type { AvatarStore } from './data-access/avatar-store';
import { accountRouter } from './entry-points/http/account-router';
import { adminUsersRouter } from './entry-points/http/admin-users-router';

export function createApp(domain: AuthDomain, avatars: AvatarStore): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(jsonBody());
  app.use(accountRouter(domain));
  app.use(adminUsersRouter(domain, avatars));
  app.use(notFoundHandler);
  app.use(errorHandler(domain.logger));
  return app;
}
