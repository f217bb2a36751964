// The desktop service's internal HTTP app (reached only through the gateway).
import express, { type Express } from 'express';
import { type HttpMetrics, type Logger } from '@acct/shared';
import { Operations, errorHandler, httpMetricsMiddleware, jsonBody, notFoundHandler, requestScope } from '@acct/shared/http';
import { desktopInternalRouter, desktopOperations, type DesktopRouterDeps } from './entry-points/http/desktop-router';
import { requireUserSession } from './domain/sync';
import { traceIncoming } from '@acct/shared/tracing';
import type http from 'node:http';
import { versionAnswerWriter, versionCheckFirst } from './entry-points/http/latest-version';

export interface DesktopDeps extends Omit<DesktopRouterDeps, 'writeVersionAnswer'> {
  logger: Logger;
  /** The largest JSON body, in bytes. */
  bodyLimit: number;
  http: HttpMetrics;
  latestVersionMaxAgeSeconds: number;
}

/** Desktop's HTTP listener: the version check's direct path (latest-version.ts), then the Express app. */
export function createApp(deps: DesktopDeps): http.RequestListener {
  const writeVersionAnswer = versionAnswerWriter(deps.latestVersionMaxAgeSeconds);
  return versionCheckFirst(deps, writeVersionAnswer, expressApp({ ...deps, writeVersionAnswer }));
}

function expressApp(deps: DesktopRouterDeps & DesktopDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(traceIncoming('desktop'));
  app.use(requestScope);
  app.use(httpMetricsMiddleware(deps.http));
  app.use(jsonBody(deps.bodyLimit));
  // The public routes from the route table; a session route takes a user's live session.
  const operations = new Operations('desktop', (_kind, authorization) => requireUserSession(deps.revocations, deps.verifier.verifyHeader(authorization)));
  operations.bind(desktopOperations(deps));
  app.use(operations.dispatcher());
  app.use(desktopInternalRouter(deps));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
