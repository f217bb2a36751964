// The gateway's express app: security headers, request log, the route allow-list, and 404 for everything else.
import express, { type Express } from 'express';
import helmet from 'helmet';
import { errorHandler, notFoundHandler, type Logger } from '@acct/shared';
import { trustProxySetting, type GatewayConfig } from './config';
import { requestLog } from './request-log';

export interface GatewayDeps {
  config: GatewayConfig;
  /** Service logger (start-up, errors). */
  logger: Logger;
  /** The request log: one record per request, spec fields only. */
  requestLogger: Logger;
}

export function createApp(deps: GatewayDeps): Express {
  const { config, logger, requestLogger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(config.TRUST_PROXY));
  app.set('etag', false);
  app.use(requestLog(requestLogger));
  app.use(helmet());
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
