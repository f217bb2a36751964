// The one closed error catalogue. Every error a client can get has a code from a catalogue: the base
// codes here, which every service may answer, extended by each service in its one `errors.ts`. A
// catalogue is the only place a code gets its HTTP status, and `toErrorAnswer` the only place any
// thrown value becomes the envelope; the cause stays inside the process and never reaches a client.
import type { Logger } from 'pino';
import { isDependencyUnavailable } from './dependency-errors';
import { fail, type ErrorEnvelope } from './envelope';

export interface ErrorCodeSpec {
  status: number;
  /** What the code means to a client, and what to do about it (docs/errors.md). */
  meaning: string;
}

export const BASE_ERROR_CODES = {
  validation_failed: { status: 400, meaning: 'A field is missing or invalid; `message` says which, in the words of the interface, and `errors` may name fields.' },
  malformed_json: { status: 400, meaning: 'The body is not valid JSON.' },
  unauthorized: { status: 401, meaning: 'No valid access token: send `Authorization: Bearer <accessToken>`, refreshing it first if it expired.' },
  session_revoked: { status: 401, meaning: 'The access token belongs to a session that ended (logout, sign-out, password reset, disabled account, refresh token reuse): refresh or log in again. Every service refuses it within a second of the ending.' },
  forbidden: { status: 403, meaning: 'The access token is valid, but its kind of account may not use this route.' },
  not_found: { status: 404, meaning: 'No such route (method and path).' },
  request_timeout: { status: 408, meaning: 'The request body did not arrive in time; the connection is closed.' },
  payload_too_large: { status: 413, meaning: 'The body, a file or a part of it is larger than the route accepts; `message` says the limit.' },
  unsupported_media_type: { status: 415, meaning: 'The body or file is of a type or encoding the route does not accept.' },
  rate_limited: { status: 429, meaning: 'Too many attempts; wait the `Retry-After` header\'s seconds before trying again.' },
  internal_error: { status: 500, meaning: 'A fault of the service; the request id in `X-Request-Id` finds it in the logs.' },
  service_unavailable: { status: 503, meaning: 'A store or service behind this one is unreachable; retry with back-off.' },
  upstream_timeout: { status: 504, meaning: 'A service behind the gateway did not answer in time; retry with back-off.' },
} as const satisfies Record<string, ErrorCodeSpec>;

export type BaseErrorCode = keyof typeof BASE_ERROR_CODES;

export interface AppErrorOptions {
  cause?: unknown;
  /** Field details for a 400, returned as `errors`. */
  errors?: Record<string, string>;
  /** Sent as `Retry-After` (whole seconds, at least 1). */
  retryAfterSeconds?: number;
  /** Other response headers the answer needs (`Connection: close`, an internal header to the gateway). */
  headers?: Record<string, string>;
}

export class AppError<C extends string = string> extends Error {
  readonly errors?: Record<string, string>;
  readonly retryAfterSeconds?: number;
  readonly headers?: Record<string, string>;

  /** Made by a catalogue's `error()`, which gives the status its code has. */
  constructor(
    readonly code: C,
    readonly httpStatus: number,
    message: string,
    options: AppErrorOptions = {},
  ) {
    // A 4xx is an expected answer, not a fault: capturing its stack trace was a visible share of
    // the CPU of a request that fails validation. 5xx errors keep theirs.
    const limit = Error.stackTraceLimit;
    if (httpStatus < 500) Error.stackTraceLimit = 0;
    super(message, { cause: options.cause });
    Error.stackTraceLimit = limit;
    this.name = 'AppError';
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers;
  }
}

export interface ErrorCatalogue<C extends string = string> {
  readonly codes: Readonly<Record<C, ErrorCodeSpec>>;
  /** An error with one of this catalogue's codes, and the status that code has. */
  error(code: C, message: string, options?: AppErrorOptions): AppError<C>;
}

/** The base codes plus a service's own; a service's own code may not redefine a base one. */
export function errorCatalogue<E extends Record<string, ErrorCodeSpec>>(
  own: E & { [K in keyof E]: K extends BaseErrorCode ? never : ErrorCodeSpec },
): ErrorCatalogue<BaseErrorCode | Extract<keyof E, string>> {
  const codes = { ...BASE_ERROR_CODES, ...own } as Record<BaseErrorCode | Extract<keyof E, string>, ErrorCodeSpec>;
  return {
    codes,
    error: (code, message, options) => new AppError(code, codes[code].status, message, options),
  };
}

const base = errorCatalogue({});

/** Base errors every service raises alike. */
export const errors = {
  validation: (message: string, fields?: Record<string, string>) => base.error('validation_failed', message, { errors: fields }),
  rateLimited: (retryAfterSeconds: number) => base.error('rate_limited', 'Too many requests, please try again later', { retryAfterSeconds }),
  tooLarge: (message = 'Request body too large') => base.error('payload_too_large', message),
  unsupportedMediaType: (message: string) => base.error('unsupported_media_type', message),
  malformedJson: () => base.error('malformed_json', 'Malformed JSON body'),
  unauthorized: () => base.error('unauthorized', 'Authentication required'),
  sessionRevoked: () => base.error('session_revoked', 'Session expired or revoked'),
  forbidden: (message: string) => base.error('forbidden', message),
  bodyTimeout: () => base.error('request_timeout', 'Request body not received in time', { headers: { Connection: 'close' } }),
  unavailable: (cause?: unknown) => base.error('service_unavailable', 'Service temporarily unavailable', { cause }),
  /** The service is up but has more work than it can do in time. */
  busy: (retryAfterSeconds: number) => base.error('service_unavailable', 'Service busy, please retry shortly', { retryAfterSeconds }),
  upstreamTimeout: (cause?: unknown) => base.error('upstream_timeout', 'Upstream service timed out', { cause }),
  internal: (cause?: unknown) => base.error('internal_error', 'Internal server error', { cause }),
};

export const NOT_FOUND_ENVELOPE = fail('Route not found', 'not_found');

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ErrorEnvelope;
}

/**
 * Any thrown value as the answer a client gets: an AppError as itself, a store or broker outage as
 * 503, anything else as a generic 500. Faults (5xx) are logged with `context`, with their cause.
 */
export function toErrorAnswer(err: unknown, logger: Logger, context: Record<string, unknown> = {}): ErrorAnswer {
  let error: AppError;
  if (err instanceof AppError) {
    error = err;
    if (error.httpStatus >= 500) logger.error({ ...context, err: error.cause ?? error, code: error.code }, error.message);
  } else if (isDependencyUnavailable(err)) {
    error = errors.unavailable(err);
    logger.error({ ...context, err, code: error.code }, 'Dependency unavailable');
  } else {
    error = errors.internal(err);
    logger.error({ ...context, err, code: error.code }, 'Unhandled error');
  }
  const headers: Record<string, string> = { ...error.headers };
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  return { status: error.httpStatus, headers, body: fail(error.message, error.code, error.errors) };
}

/** The table of error codes in docs/errors.md: one row per code of the given catalogues, and whose routes answer it. */
export function errorCodeTable(catalogues: Record<string, ErrorCatalogue>): string {
  const rows = new Map<string, { spec: ErrorCodeSpec; by: string[] }>();
  for (const [service, catalogue] of Object.entries(catalogues)) {
    for (const [code, spec] of Object.entries(catalogue.codes)) {
      const row = rows.get(code) ?? { spec, by: [] };
      row.by.push(service);
      rows.set(code, row);
    }
  }
  const lines = ['| code | status | meaning | from |', '| --- | --- | --- | --- |'];
  for (const [code, { spec, by }] of [...rows].sort(([a, x], [b, y]) => x.spec.status - y.spec.status || a.localeCompare(b))) {
    lines.push(`| \`${code}\` | ${spec.status} | ${spec.meaning} | ${code in BASE_ERROR_CODES ? 'any route' : `${by.join(', ')} routes`} |`);
  }
  return lines.join('\n');
}
