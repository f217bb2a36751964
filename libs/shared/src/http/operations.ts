// A service's operations, dispatched from the route table (@acct/shared/routes): a route the service
// answers is a row there and a handler here. Registering a handler for a path the table does not
// give this service, or with another caller than its row says, fails at start, and so does a row of
// the service's left without a handler. The dispatcher finds the row with one lookup (no walk of an
// Express router stack), applies the row's caller once (the service's own session guard, with the
// row's `fresh` and `proof: 'recent'`) and its caching (`no-store` unless the row
// says who may keep the answer), and hands the handler the caller and the path's parameters.
import type { Request, RequestHandler, Response } from 'express';
import type { AccessClaims, AccountKind } from '../access-token';
import { ROUTES, RouteMatcher, type RouteSpec, type Upstream } from '../routes';

type Params = Record<string, string>;
type Run = (req: Request, res: Response, params: Params) => Promise<void>;

/**
 * The service's check of a session's access token: the claims of a live session of `kind`, or it
 * throws the service's 401/403; `fresh` and `recentProof` come from the route's row.
 */
export type SessionGuard = (kind: AccountKind, authorization: string | undefined, options: { fresh?: boolean; recentProof?: boolean }) => Promise<AccessClaims>;

export class Operations {
  /** Each row's handler, and the route the metrics and the trace name its requests by (as Express would set `req.route`). */
  private readonly handlers = new Map<RouteSpec, { run: Run; named: { path: string } }>();

  constructor(
    private readonly service: Exclude<Upstream, 'local'>,
    private readonly guard: SessionGuard,
  ) {}

  /** A route anyone may call (its row says `anyone`). */
  open(method: RouteSpec['method'], path: string, run: (req: Request, res: Response, params: Params) => Promise<void>): void {
    this.add(this.row(method, path, 'anyone'), run);
  }

  /** A route for a live session of the row's kind, with the proof its row asks: the handler gets its verified claims. */
  session(method: RouteSpec['method'], path: string, run: (req: Request, res: Response, caller: AccessClaims, params: Params) => Promise<void>): void {
    const row = this.row(method, path, 'session');
    const kind = row.caller as AccountKind;
    const options = { fresh: row.fresh === true, recentProof: row.proof === 'recent' };
    this.add(row, async (req, res, params) => {
      const caller = await this.guard(kind, req.get('authorization'), options);
      await run(req, res, caller, params);
    });
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

  private row(method: RouteSpec['method'], path: string, caller: 'anyone' | 'session'): RouteSpec {
    const row = ROUTES.find((r) => r.upstream === this.service && r.method === method && r.path === path);
    if (!row) throw new Error(`${method.toUpperCase()} ${path} is not ${this.service}'s in the route table (libs/shared/src/routes)`);
    const rowCaller = row.caller === 'anyone' ? 'anyone' : row.caller === 'user' || row.caller === 'admin' ? 'session' : row.caller;
    if (rowCaller !== caller) throw new Error(`${row.operationId}: the route table says ${row.caller} may call it, the handler is registered for ${caller}`);
    if (this.handlers.has(row)) throw new Error(`${row.operationId} has two handlers`);
    return row;
  }

  private add(row: RouteSpec, run: Run): void {
    this.handlers.set(row, { run, named: { path: row.path } });
  }
}
