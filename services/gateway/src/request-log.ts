// One structured record per request, exactly the spec's fields plus request_id.
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '@acct/shared';

export interface Actor {
  type: 'admin' | 'user';
  id: string;
  role: string;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SECRET_QUERY_KEYS = new Set(['token', 'code', 'password', 'newpassword', 'challenge_token', 'access_token']);

/** The path with its query string, secret query values blanked so that no token reaches the log. */
export function loggablePath(originalUrl: string): string {
  const q = originalUrl.indexOf('?');
  if (q < 0) return originalUrl;
  const params = originalUrl.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    return SECRET_QUERY_KEYS.has(key.toLowerCase()) && eq >= 0 ? `${key}=[redacted]` : pair;
  });
  return `${originalUrl.slice(0, q)}?${params.join('&')}`;
}

export function levelFor(status: number): 'error' | 'warn' | 'info' {
  if (status >= 500) return 'error';
  if (status >= 400) return 'warn';
  return 'info';
}

/** Takes a client's X-Request-Id when it is sane, else makes one; echoes it and logs at the end. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const incoming = req.get('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
      const status = res.statusCode;
      const path = loggablePath(req.originalUrl);
      const actor = res.locals.actor as Actor | undefined;
      const record: Record<string, unknown> = {
        method: req.method,
        path,
        status,
        duration_ms: durationMs,
        ip: req.ip,
        actor_type: actor ? actor.type : 'anonymous',
      };
      if (actor) {
        record.actor_id = actor.id;
        record.actor_role = actor.role;
      }
      record.request_id = requestId;
      logger[levelFor(status)](record, `${req.method} ${path} ${status} ${durationMs}ms`);
    };
    res.once('finish', write);
    res.once('close', write);
    next();
  };
}
