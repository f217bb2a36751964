// The desktop service's internal HTTP app (reached only through the gateway).
import express, { type Express } from 'express';
import { type HttpMetrics, type Logger } from '@acct/shared';
import { errorHandler, httpMetricsMiddleware, jsonBody, notFoundHandler, requestScope } from '@acct/shared/http';
import { desktopRouter, type DesktopRouterDeps } from './entry-points/http/desktop-router';
import { traceIncoming } from '@acct/shared/tracing';

export interface DesktopDeps extends DesktopRouterDeps {
  logger: Logger;
  /** The largest JSON body, in bytes. */
  bodyLimit: number;
  http: HttpMetrics;
}

export function createApp(deps: DesktopDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(traceIncoming('desktop'));
  app.use(requestScope);
  app.use(httpMetricsMiddleware(deps.http));
  app.use(jsonBody(deps.bodyLimit));
  app.use(desktopRouter(deps));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
