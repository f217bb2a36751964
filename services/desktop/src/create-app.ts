// The desktop service's internal HTTP app (reached only through the gateway).
import express, { type Express } from 'express';
import { errorHandler, jsonBody, notFoundHandler, type Logger } from '@acct/shared';
import type { DesktopConfig } from './config';

export interface DesktopDeps {
  config: DesktopConfig;
  logger: Logger;
}

export function createApp(deps: DesktopDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(jsonBody());
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
