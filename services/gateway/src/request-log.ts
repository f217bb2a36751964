// One structured record per request, exactly the spec's fields plus request_id.
import { randomUUID } from 'node:crypto';
import { loggablePath, type Logger } from '@acct/shared';

export interface Actor {
  type: 'admin' | 'user';
  id: string;
  role: string;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

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
