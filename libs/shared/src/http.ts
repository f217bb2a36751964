// Express pieces every service shares: JSON body parsing with clear 4xx, the 404 answer and the error middleware.
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError } from './errors';
import { isDependencyUnavailable } from './dependency-errors';
import { fail } from './envelope';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** `express.json` with the given limit; its own errors become 400 / 413 / 415 AppErrors. */
export function jsonBody(limit = '100kb'): RequestHandler {
  const parse = express.json({ limit, strict: true });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = err as BodyParserError;
      if (e.type === 'entity.too.large') return next(new AppError('payload_too_large', 413, 'Request body too large'));
      if (e.type === 'entity.parse.failed') return next(new AppError('malformed_json', 400, 'Malformed JSON body'));
      if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
        return next(new AppError('unsupported_media_type', 415, 'Unsupported content encoding'));
      }
      return next(new AppError('validation_failed', 400, 'Invalid request body', { cause: err }));
    });
  };
}

export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json(fail('Route not found', 'not_found'));
};

/** Maps AppErrors to the envelope; anything else is logged and answered as a generic 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof AppError) {
      if (err.headers) res.set(err.headers);
      if (err.httpStatus >= 500) logger.error({ err: err.cause ?? err, code: err.code, path: req.path }, err.message);
      res.status(err.httpStatus).json(fail(err.message, err.code, err.errors));
      return;
    }
    if (isDependencyUnavailable(err)) {
      logger.error({ err, path: req.path }, 'Dependency unavailable');
      res.status(503).json(fail('Service temporarily unavailable', 'service_unavailable'));
      return;
    }
    logger.error({ err, path: req.path }, 'Unhandled error');
    res.status(500).json(fail('Internal server error', 'internal_error'));
  };
}
