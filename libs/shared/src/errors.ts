// Errors are values with stable codes; the cause stays inside the process and never reaches a client.

export interface AppErrorOptions {
  cause?: unknown;
  /** Field details for a 400, returned as `errors`. */
  errors?: Record<string, string>;
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly code: string;
  readonly httpStatus: number;
  readonly errors?: Record<string, string>;
  readonly headers?: Record<string, string>;

  constructor(code: string, httpStatus: number, message: string, options: AppErrorOptions = {}) {
    // A 4xx is an expected answer, not a fault: capturing its stack trace was a visible share of
    // the CPU of a request that fails validation. 5xx errors keep theirs.
    const limit = Error.stackTraceLimit;
    if (httpStatus < 500) Error.stackTraceLimit = 0;
    super(message, { cause: options.cause });
    Error.stackTraceLimit = limit;
    this.name = 'AppError';
    this.code = code;
    this.httpStatus = httpStatus;
    this.errors = options.errors;
    this.headers = options.headers;
  }
}

export const errors = {
  validation: (message: string, fields?: Record<string, string>) =>
    new AppError('validation_failed', 400, message, { errors: fields }),
  conflict: (message: string) => new AppError('conflict', 409, message),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('rate_limited', 429, 'Too many requests, please try again later', {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    }),
};
