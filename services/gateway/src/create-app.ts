// The gateway's express app: request log, security headers, actor resolution, the route allow-list
// proxied to the services, and a JSON 404 for everything else.
import express, { type Express } from 'express';
import cookieParser from 'cookie-parser';
import helmet from 'helmet';
import { errorHandler, jsonBody, notFoundHandler, type AccessTokenVerifier, type Logger } from '@acct/shared';
import { resolveActor } from './actor';
import { trustProxySetting, type GatewayConfig } from './config';
import { proxyTo } from './proxy';
import { requestLog } from './request-log';
import { ROUTES, type Upstream } from './routes';
import type { UpstreamClient } from './upstream';

export interface GatewayDeps {
  config: GatewayConfig;
  /** Service logger (start-up, errors). */
  logger: Logger;
  /** The request log: one record per request, spec fields only. */
  requestLogger: Logger;
  verifier: AccessTokenVerifier;
  upstreams: Record<Upstream, UpstreamClient>;
}

export function createApp(deps: GatewayDeps): Express {
  const { config, logger, requestLogger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(config.TRUST_PROXY));
  app.set('etag', false);
  app.use(requestLog(requestLogger));
  app.use(helmet());
  app.use(resolveActor(deps.verifier));
  const json = jsonBody(config.BODY_LIMIT);
  const cookies = cookieParser();
  const options = { production: config.NODE_ENV === 'production', uploadLimitBytes: config.UPLOAD_LIMIT_BYTES };
  for (const route of ROUTES) {
    const handlers = [route.body === 'json' ? json : undefined, route.readsCookie ? cookies : undefined].filter((h) => h !== undefined);
    app[route.method](route.path, ...handlers, proxyTo(route, deps.upstreams[route.upstream], options));
  }
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
