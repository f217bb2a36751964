// The common tail of every service's start: listen, serve health on its own port, and stop in order.
import http from 'node:http';
import type { Logger } from 'pino';
import { closeServer, listen, startHealthServer, type ReadinessCheck } from './health';
import { closeAll, type Closer } from './shutdown';

export interface ServiceOptions {
  name: string;
  logger: Logger;
  host: string;
  healthPort: number;
  checks: Record<string, ReadinessCheck>;
  /** Dependencies to close after the HTTP server stopped, in order. */
  closers: Closer[];
  /** The HTTP app, for services that answer HTTP. */
  app?: http.RequestListener;
  port?: number;
  shutdownTimeoutMs?: number;
}

export interface RunningService {
  port: number;
  healthPort: number;
  /** Stops accepting, finishes in-flight work, closes dependencies; answers whether all closed cleanly. */
  stop(): Promise<boolean>;
}

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { name, logger, host } = options;
  const closers: Closer[] = [];
  let port = 0;
  if (options.app) {
    const server = http.createServer(options.app);
    // Longer than common load balancer idle timeouts, so they close first.
    server.keepAliveTimeout = 65_000;
    port = await listen(server, options.port ?? 0, host);
    closers.push({ name: 'http', close: () => closeServer(server) });
  }
  const health = await startHealthServer(options.healthPort, options.checks, host);
  closers.push(...options.closers, { name: 'health', close: () => health.close() });
  logger.info({ port: options.app ? port : undefined, healthPort: health.port }, `${name} started`);
  return {
    port,
    healthPort: health.port,
    stop: () => closeAll(closers, logger, options.shutdownTimeoutMs),
  };
}
