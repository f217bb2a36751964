// A service's operations, dispatched from the route table (@acct/shared/routes): a route the service
// answers is a row there and a handler here, bound by the row's operation id. `bind` takes one
// handler for each of the service's ids, typed from the table: a row left without a handler, an id
// the table does not give the service, or a session handler on an `anyone` row (or the other way
// round) is a compile error, and no handler names a method or a path. The dispatcher finds the row
// with one lookup (no walk of an Express router stack), applies the row's caller once (the service's
// own session guard, with the row's `fresh` and `proof: 'recent'`; its bot check, on a row marked
// `botCheck`) and its caching (`no-store`
// unless the row says who may keep the answer), and hands the handler the caller and the path's
// parameters.
import type { Request, RequestHandler, Response } from 'express';
import type { AccessClaims, AccountKind } from '../access-token';
import { ROUTES, RouteMatcher, type RouteRow, type RouteSpec, type Upstream } from '../routes';

export type Params = Record<string, string>;
/** The handler of a route anyone may call. */
export type OpenHandler = (req: Request, res: Response, params: Params) => Promise<void>;
/** The handler of a route for a live session of the row's kind: it gets the session's verified claims. */
export type SessionHandler = (req: Request, res: Response, caller: AccessClaims, params: Params) => Promise<void>;

/** A service that answers routes of the table (the gateway's own, `local`, are answered in the gateway). */
export type Service = Exclude<Upstream, 'local'>;
type HandlerOf<R> = R extends { caller: 'anyone' } ? OpenHandler : SessionHandler;
/** One handler for each operation of the service, by operation id, typed by its row's caller. */
export type Handlers<S extends Service> = { [R in Extract<RouteRow, { upstream: S }> as R['operationId']]: HandlerOf<R> };

/**
 * The handlers of a route that the table has once for each kind (`registerUser`, `registerAdmin`):
 * one function of the kind makes both.
 */
export function forEachKind<U extends string, A extends string, H extends OpenHandler | SessionHandler>(ids: { user: U; admin: A }, make: (kind: AccountKind) => H): Record<U | A, H> {
  return { [ids.user]: make('user'), [ids.admin]: make('admin') } as Record<U | A, H>;
}

/**
 * The service's check of a session's access token: the claims of a live session of `kind`, or it
 * throws the service's 401/403; `fresh` and `recentProof` come from the route's row.
 */
export type SessionGuard = (kind: AccountKind, authorization: string | undefined, options: { fresh?: boolean; recentProof?: boolean }) => Promise<AccessClaims>;

/** The service's bot check of a request to a row marked `botCheck`: it throws the service's 400 when the request's answer does not pass. */
export type BotGuard = (req: Request) => Promise<void>;

export class Operations<S extends Service> {
  /** Each row's handler, and the route the metrics and the trace name its requests by (as Express would set `req.route`). */
  private readonly handlers = new Map<RouteSpec, { run: OpenHandler; named: { path: string } }>();

  constructor(
    private readonly service: S,
    private readonly guard: SessionGuard,
    /** Applied before the handler of every row marked `botCheck`; a service with such rows must give one. */
    private readonly botGuard?: BotGuard,
  ) {}

  /** Binds a handler to each of the service's rows, applying the row's caller before it runs. */
  bind(handlers: Handlers<S>): this {
    const byId = handlers as unknown as Record<string, OpenHandler | SessionHandler>;
    for (const row of ROUTES.filter((r) => r.upstream === this.service)) {
      const handler = byId[row.operationId];
      // The types hold this for typed callers; a caller in plain JavaScript learns it at start.
      if (!handler) throw new Error(`${this.service} has no handler for ${row.operationId} (libs/shared/src/routes)`);
      this.handlers.set(row, { run: this.guarded(row, handler), named: { path: row.path } });
    }
    const unknown = Object.keys(byId).filter((id) => !ROUTES.some((r) => r.upstream === this.service && r.operationId === id));
    if (unknown.length) throw new Error(`${unknown.join(', ')}: not ${this.service}'s in the route table (libs/shared/src/routes)`);
    return this;
  }

  /** One middleware answering every operation; anything else goes on to `next`. */
  dispatcher(): RequestHandler {
    const missing = ROUTES.filter((r) => r.upstream === this.service && !this.handlers.has(r)).map((r) => r.operationId);
    if (missing.length) throw new Error(`${this.service} has no handler for ${missing.join(', ')} (libs/shared/src/routes)`);
    const matcher = new RouteMatcher([...this.handlers.keys()]);
    return (req, res, next) => {
      const found = matcher.find(req.method, req.path);
      if (!found) return next();
      const { run, named } = this.handlers.get(found.route)!;
      (req as { route?: unknown }).route = named;
      // Nothing keeps an answer unless its row says who may (the handler then says how).
      if (!found.route.caching) res.setHeader('Cache-Control', 'no-store');
      run(req, res, found.params).then(undefined, next);
    };
  }

  private guarded(row: RouteSpec, handler: OpenHandler | SessionHandler): OpenHandler {
    if (row.botCheck) {
      const botGuard = this.botGuard;
      if (!botGuard) throw new Error(`${row.operationId}: the row asks a bot check, and ${this.service} has none`);
      if (row.caller !== 'anyone') throw new Error(`${row.operationId}: a bot check is for routes anyone may call`);
      const run = handler as OpenHandler;
      return async (req, res, params) => {
        await botGuard(req);
        await run(req, res, params);
      };
    }
    if (row.caller === 'anyone') return handler as OpenHandler;
    if (row.caller !== 'user' && row.caller !== 'admin') throw new Error(`${row.operationId}: a service answers no ${row.caller} route`);
    const kind = row.caller;
    const options = { fresh: row.fresh === true, recentProof: row.proof === 'recent' };
    const run = handler as SessionHandler;
    return async (req, res, params) => {
      const caller = await this.guard(kind, req.get('authorization'), options);
      await run(req, res, caller, params);
    };
  }
}
