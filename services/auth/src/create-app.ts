// The auth service's internal HTTP app (reached only through the gateway).
import express, { type Express } from 'express';
import { errorHandler, jsonBody, notFoundHandler, type Logger } from '@acct/shared';
import type { AuthConfig } from './config';

export interface AuthDeps {
  config: AuthConfig;
  logger: Logger;
}

export function createApp(deps: AuthDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(jsonBody());
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
