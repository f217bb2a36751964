// @acct/shared/http: the express pieces every service shares: JSON body parsing with clear 4xx, the
// 404 answer and the error middleware (the envelope comes from toErrorAnswer, as in the gateway).
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { NOT_FOUND_ENVELOPE, errors, toErrorAnswer } from '../errors';
import { InternalHeaders } from '../internal-headers';
import type { HttpMetrics } from '../metrics';
import { withRequestId } from '../request-context';

interface BodyParserError extends Error {
  type?: string;
}

/** How deep a JSON body may nest: deeper ones are refused before they are parsed (and never reach a store or a recursive walk). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `raw` (JSON text) nests objects and arrays deeper than `max`: one pass over the bytes,
 * brackets inside strings not counted.
 */
export function nestsDeeperThan(raw: Buffer, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

class TooDeepError extends Error {
  readonly type = 'entity.too.deep';
}

/** `express.json` with the given limit and a nesting bound; its own errors become 400 / 413 / 415 AppErrors. */
export function jsonBody(limit: number | string = '100kb'): RequestHandler {
  const parse = express.json({
    limit,
    strict: true,
    verify: (_req, _res, raw) => {
      if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) throw new TooDeepError('too deep');
    },
  });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const type = (err as BodyParserError).type;
      if (type === 'entity.too.large') return next(errors.tooLarge());
      if (type === 'entity.parse.failed') return next(errors.malformedJson());
      if (type === 'entity.too.deep') return next(errors.validation(`JSON body nested too deeply (at most ${MAX_JSON_DEPTH} levels)`));
      if (type === 'encoding.unsupported' || type === 'charset.unsupported') return next(errors.unsupportedMediaType('Unsupported content encoding'));
      return next(errors.validation('Invalid request body'));
    });
  };
}

/** Runs the rest of the request inside its request id (the gateway's X-Request-Id), so every log record names it. */
export const requestScope: RequestHandler = (req, _res, next) => withRequestId(req.get(InternalHeaders.requestId), next);

export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json(NOT_FOUND_ENVELOPE);
};

/** Answers any error with its envelope (toErrorAnswer); a response already under way is cut. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const answer = toErrorAnswer(err, logger, { path: req.path });
    res.set(answer.headers).status(answer.status).json(answer.body);
  };
}

/** Counts and times every answer by its route template (`unmatched` when no route took it). */
export function httpMetricsMiddleware(metrics: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      metrics.observe(req.method, route, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
export { Operations, forEachKind, type Handlers, type OpenHandler, type SessionHandler, type SessionGuard } from './operations';
