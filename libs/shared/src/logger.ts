// The pino logger factory: every service's records share the spec's shape (string level, `message`, ISO timestamp).
import pino, { type DestinationStream, type Logger } from 'pino';
import { trace } from '@opentelemetry/api';
import { currentRequestId } from './request-context';
import { secretLogKeys } from './secrets';
import { logsTraceIds } from './tracing';

export type { Logger } from 'pino';

/** Secret keys (the secrets table) at the top and the two levels below it. */
const REDACT_PATHS = secretLogKeys.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);

/**
 * `code` is both a one-time code (a secret) and an error's code (what an operator searches for): an
 * error code, lower-case words joined by underscores, stays readable, anything else is redacted.
 */
const ERROR_CODE = /^[a-z]+(_[a-z]+)*$/;
function censor(value: unknown, path: string[]): unknown {
  return path[path.length - 1] === 'code' && typeof value === 'string' && ERROR_CODE.test(value) ? value : '[redacted]';
}

/** What every record written inside a request (and, with tracing on, a span) names: its request and trace ids. */
function context(withRequestId: boolean, withTrace: boolean): (() => Record<string, string>) | undefined {
  if (!withRequestId && !withTrace) return undefined;
  return () => {
    const fields: Record<string, string> = {};
    const requestId = withRequestId ? currentRequestId() : undefined;
    if (requestId) fields.request_id = requestId;
    const span = withTrace ? trace.getActiveSpan() : undefined;
    if (span) fields.trace_id = span.spanContext().traceId;
    return fields;
  };
}

export interface LoggerOptions {
  level?: string;
  /** Fields on every record, e.g. `{ service: 'auth' }`; the gateway's request log uses none. */
  base?: Record<string, unknown>;
  destination?: DestinationStream;
  /**
   * Redact secret keys at any depth (default). A logger whose records have a fixed, known set of
   * fields (the request log) turns it off: wildcard redaction is a large share of its cost.
   */
  redact?: boolean;
  /**
   * Add the `request_id` of the work under way to every record (default; `trace_id` is added with
   * tracing on either way, except at the public edge: logsTraceIds). The gateway's request log
   * names its request itself and turns it off.
   */
  requestId?: boolean;
}

let stampedAt = -1;
let stamp = '';
/**
 * pino's timestamp field, ISO 8601 to the millisecond. The string is made once a millisecond: under
 * load tens of records share one, and making it was the gateway's largest own cost after the
 * writes (bench/RESULTS.md, "The gateway's cheapest answers, trimmed").
 */
function isoTimestamp(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = `,"timestamp":"${new Date(now).toISOString()}"`;
  }
  return stamp;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      messageKey: 'message',
      base: options.base ?? null,
      timestamp: isoTimestamp,
      formatters: { level: (label) => ({ level: label }) },
      redact: options.redact === false ? undefined : { paths: REDACT_PATHS, censor },
      mixin: context(options.requestId !== false, logsTraceIds()),
    },
    // Synchronous writes to stdout: a record is out before the next line of code runs, so a crash
    // loses none, and a slow reader holds the process back instead of growing a buffer without
    // bound. Measured faster than asynchronous writes under load, which handed every record to a
    // thread-pool thread (proxy scenario, 2 cores: 7,250 – 7,689 /s against 6,500 – 7,318 /s).
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/**
 * A logger that keeps records in memory, for tests that assert on what was logged; `alsoWrite`
 * gets each line too (the tests' shared stack writes its logs to files that other processes read).
 */
export function createMemoryLogger(level = 'trace', alsoWrite?: (line: string) => void): { logger: Logger; records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  const destination = {
    write(line: string) {
      records.push(JSON.parse(line));
      alsoWrite?.(line);
    },
  };
  return { logger: createLogger({ level, destination }), records };
}
