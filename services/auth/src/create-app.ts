// The auth service's internal HTTP app (reached only through the gateway).
import express, { type Express } from 'express';
import { errorHandler, jsonBody, notFoundHandler } from '@acct/shared';
import type { AuthDomain } from './domain/deps';
import { accountRouter } from './entry-points/http/account-router';

export function createApp(domain: AuthDomain): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(jsonBody());
  app.use(accountRouter(domain));
  app.use(notFoundHandler);
  app.use(errorHandler(domain.logger));
  return app;
}
