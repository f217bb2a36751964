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

/** `express.json` with the given limit; its own errors become 400 / 413 / 415 AppErrors. */
export function jsonBody(limit: number | string = '100kb'): RequestHandler {
  const parse = express.json({ limit, strict: true });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const type = (err as BodyParserError).type;
      if (type === 'entity.too.large') return next(errors.tooLarge());
      if (type === 'entity.parse.failed') return next(errors.malformedJson());
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
