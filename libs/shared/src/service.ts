// The one shape of every service's start. `runService` is each entry point: config, logger, start,
// signals. `composeService` is each composition root: open the dependencies one by one (each
// recorded with its closer, so a failed start closes what it opened), then listen, serve health on
// its own port, and stop in order.
import http from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { closeServer, listen, startHealthServer, type ReadinessCheck } from './health';
import { createLogger } from './logger';
import { keepNextTickFast } from './next-tick';
import { closeAll, installShutdown, runMain, type Closer } from './shutdown';

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
  /** Served at GET /metrics on the health port. */
  metrics?: Registry;
  /**
   * Ends the answers that would hold the listener open past its close (event streams), when the
   * service stops or, draining, once the listener closes: their clients reconnect to another replica.
   */
  endLongAnswers?: () => void;
}

export interface DrainOptions {
  /** How long readiness answers 503 while the listener still serves, so load balancers stop sending first. */
  delayMs: number;
  /** How long in-flight requests and messages then get to finish before the rest is cut. */
  timeoutMs: number;
}

export interface RunningService {
  port: number;
  healthPort: number;
  /** Stops accepting, finishes in-flight work, closes dependencies; answers whether all closed cleanly. */
  stop(): Promise<boolean>;
  /**
   * The stop of a signal: readiness 503 at once; after `delayMs` the listener closes and every
   * keep-alive connection closes after its current answer (`Connection: close`); in-flight work
   * gets `timeoutMs`, then open connections are cut. Answers false when anything had to be cut.
   */
  drain(options: DrainOptions): Promise<boolean>;
}

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { name, logger, host } = options;
  const closers: Closer[] = [];
  let port = 0;
  let server: http.Server | undefined;
  let draining = false;
  if (options.app) {
    const app = options.app;
    // While draining, every answer ends its connection: a keep-alive client reconnects elsewhere. One
    // listener, not a second one before the app's: an event with two listeners copies its list each time.
    server = http.createServer((req, res) => {
      if (draining) res.setHeader('Connection', 'close');
      return app(req, res);
    });
    // Longer than common load balancer idle timeouts, so they close first.
    server.keepAliveTimeout = 65_000;
    port = await listen(server, options.port ?? 0, host);
    const listening = server;
    closers.push({ name: 'http', close: () => closeServer(listening) });
  }
  let health;
  try {
    health = await startHealthServer(options.healthPort, options.checks, host, options.metrics);
  } catch (err) {
    // The health port is taken: the HTTP port opened just before must not stay open behind the failed start.
    if (server) await closeServer(server);
    throw err;
  }
  closers.push(...options.closers, { name: 'health', close: () => health.close() });
  // Last, once nothing serves /metrics: prom-client's GC observer holds the registry for the process's
  // life, and a metric's collect holds what it reads (auth's outbox gauge, its every store). Emptied,
  // the registry holds nothing of the stopped service (a test worker starts many in one process).
  const registry = options.metrics;
  if (registry) closers.push({ name: 'metrics', close: () => registry.clear() });
  logger.info({ port: options.app ? port : undefined, healthPort: health.port }, `${name} started`);
  return {
    port,
    healthPort: health.port,
    stop: () => {
      options.endLongAnswers?.();
      return closeAll(closers, logger, options.shutdownTimeoutMs);
    },
    drain: async ({ delayMs, timeoutMs }) => {
      health.drain();
      draining = true;
      logger.info({ delay_ms: delayMs, timeout_ms: timeoutMs }, `Draining: not ready; the listener closes in ${delayMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      options.endLongAnswers?.();
      const clean = await closeAll(closers, logger, timeoutMs);
      if (!clean) server?.closeAllConnections();
      return clean;
    },
  };
}

/** Opens one dependency and records how to close it. */
export type Opener = <T>(name: string, opening: Promise<T> | T, close: (value: T) => unknown) => Promise<T>;

/** What a composition root answers once its dependencies are open: everything startService needs but the closers. */
export type ComposedService = Omit<ServiceOptions, 'name' | 'logger' | 'closers'>;

/**
 * Runs a composition root: `compose` opens dependencies through `open` (closed last-opened first at
 * stop) and answers what to serve. A start that fails closes what it had opened, then throws.
 */
export async function composeService(name: string, logger: Logger, compose: (open: Opener) => Promise<ComposedService>): Promise<RunningService> {
  const opened: Closer[] = [];
  const open: Opener = async (what, opening, close) => {
    const value = await opening;
    opened.unshift({ name: what, close: () => close(value) });
    return value;
  };
  try {
    const service = await compose(open);
    return await startService({ ...service, name, logger, closers: opened });
  } catch (err) {
    await closeAll(opened, logger, 5_000);
    throw err;
  }
}

/**
 * A service's entry point: its config, a logger named after it, its start, and the signal handlers:
 * SIGTERM or SIGINT drains (SHUTDOWN_DELAY_MS, then SHUTDOWN_TIMEOUT_MS) and exits 0 when all
 * finished, 1 when something had to be cut. nextTick is kept off its idle-time cliff (next-tick.ts).
 */
export function runService<C extends { LOG_LEVEL: string; SHUTDOWN_DELAY_MS: number; SHUTDOWN_TIMEOUT_MS: number }>(
  name: string,
  loadConfig: () => C,
  start: (config: C, logger: Logger) => Promise<RunningService>,
): void {
  // Before anything can idle: a replica waiting for its first request must not leave nextTick slow for good.
  keepNextTickFast();
  runMain(async () => {
    const config = loadConfig();
    const logger = createLogger({ level: config.LOG_LEVEL, base: { service: name } });
    const running = await start(config, logger);
    installShutdown(() => running.drain({ delayMs: config.SHUTDOWN_DELAY_MS, timeoutMs: config.SHUTDOWN_TIMEOUT_MS }), logger);
  });
}
