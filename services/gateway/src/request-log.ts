// One structured record per request, exactly the spec's fields plus request_id.
import { randomUUID } from 'node:crypto';
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
    return eq >= 0 && isSecretKey(pair.slice(0, eq)) ? `${pair.slice(0, eq)}=[redacted]` : pair;
  });
  return `${originalUrl.slice(0, q)}?${params.join('&')}`;
}

/** A key names a secret in any letter case, percent-encoded (`t%6Fken`) or bracketed (`token[]`, `user[password]`). */
function isSecretKey(raw: string): boolean {
  let key = raw.replace(/\+/g, ' ');
  try {
    key = decodeURIComponent(key);
  } catch {
    // Not valid percent-encoding: judged as written.
  }
  return key
    .toLowerCase()
    .split(/[[\]]+/)
    .some((part) => SECRET_QUERY_KEYS.has(part.trim()));
}

function levelFor(status: number): 'error' | 'warn' | 'info' {
  if (status >= 500) return 'error';
  if (status >= 400) return 'warn';
  return 'info';
}

/** A client's X-Request-Id when it is sane, else a new one. */
export function resolveRequestId(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

export interface RequestFacts {
  method: string;
  url: string;
  status: number;
  durationMs: number;
  ip: string | undefined;
  actor: Actor | undefined;
  requestId: string;
}

/** Writes the one record of a request: the spec's fields, in its words, plus request_id. */
export function logRequest(logger: Logger, facts: RequestFacts): void {
  const path = loggablePath(facts.url);
  const record: Record<string, unknown> = {
    method: facts.method,
    path,
    status: facts.status,
    duration_ms: facts.durationMs,
    ip: facts.ip,
    actor_type: facts.actor ? facts.actor.type : 'anonymous',
  };
  if (facts.actor) {
    record.actor_id = facts.actor.id;
    record.actor_role = facts.actor.role;
  }
  record.request_id = facts.requestId;
  logger[levelFor(facts.status)](record, `${facts.method} ${path} ${facts.status} ${facts.durationMs}ms`);
}

export const elapsedMs = (started: bigint) => Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
