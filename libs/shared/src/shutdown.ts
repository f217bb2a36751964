// Graceful shutdown: on SIGTERM/SIGINT run the closers in order, bounded in time, then exit.
import type { Logger } from 'pino';
import { stopTracing } from './tracing';

export interface Closer {
  name: string;
  close: () => Promise<unknown> | unknown;
}

/** Runs closers one after the other; answers false when one failed or the bound passed. */
export async function closeAll(closers: Closer[], logger: Logger, timeoutMs = 10_000): Promise<boolean> {
  let clean = true;
  const run = (async () => {
    for (const closer of closers) {
      try {
        await closer.close();
      } catch (err) {
        clean = false;
        logger.warn({ err, closer: closer.name }, 'Error while closing');
      }
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    timer.unref();
  });
  const outcome = await Promise.race([run.then(() => 'done' as const), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    logger.error({ timeoutMs }, 'Shutdown did not finish in time');
    return false;
  }
  return clean;
}

/**
 * Installs the signal handlers once: the first signal runs `stop` (which answers whether everything
 * finished), then exits 0 when it did and 1 when something was cut; a second signal exits 1 at once.
 */
export function installShutdown(stop: () => Promise<boolean>, logger: Logger): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'Shutting down');
    void stop()
      .catch((err: unknown) => {
        logger.error({ err }, 'Shutdown failed');
        return false;
      })
      .then(async (clean) => {
        if (!(await stopTracing())) logger.warn('The last spans did not go out in time (is the collector reachable?): dropped');
        if (clean) logger.info({ clean }, 'Stopped');
        else logger.error({ clean }, 'Stopped, cutting what had not finished by the deadline: exit 1');
        logger.flush?.();
        setImmediate(() => process.exit(clean ? 0 : 1));
      });
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

/** Runs a service's start function and turns a start failure into one clear line and exit code 1. */
export function runMain(start: () => Promise<unknown>): void {
  start().catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`${message}\n`);
    process.exit(1);
  });
}
