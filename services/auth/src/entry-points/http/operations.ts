// Auth's operations, dispatched from the route table (@acct/shared/routes): a route auth answers is
// a row there and a handler here. Registering a handler for a path the table does not have, or with
// another caller than its row says, fails at start. The dispatcher finds the row with one lookup
// (no walk of an Express router stack: on refresh that walk was a quarter of auth's garbage),
// applies the row's caller once (a live session of its kind; `fresh` reads the session from the
// store too, for changes to another account: access.ts) and its caching (`no-store` unless the row
// says otherwise), and hands the handler the caller and the path's parameters.
import type { Request, RequestHandler, Response } from 'express';
import type { AccessClaims, AccessTokenVerifier } from '@acct/shared';
import { ROUTES, RouteMatcher, type RouteSpec } from '@acct/shared/routes';
import { requireSession } from '../../domain/access';
import type { Needs } from '../../domain/ports';

type Params = Record<string, string>;
type Run = (req: Request, res: Response, params: Params) => Promise<void>;

export class Operations {
  private readonly handlers = new Map<RouteSpec, Run>();

  constructor(
    private readonly deps: Needs<'sessions' | 'revocations'>,
    private readonly verifier: AccessTokenVerifier,
  ) {}

  /** A route anyone may call (its row says `anyone`). */
  open(method: RouteSpec['method'], path: string, run: (req: Request, res: Response, params: Params) => Promise<void>): void {
    this.add(this.row(method, path, 'anyone'), run);
  }

  /** A route for a live session of the row's kind: the handler gets its verified claims. */
  session(method: RouteSpec['method'], path: string, run: (req: Request, res: Response, caller: AccessClaims, params: Params) => Promise<void>, options: { fresh?: boolean } = {}): void {
    const row = this.row(method, path, 'session');
    const kind = row.caller as AccessClaims['kind'];
    this.add(row, async (req, res, params) => {
      const caller = await requireSession(this.deps, this.verifier.verifyHeader(req.get('authorization')), kind, options);
      await run(req, res, caller, params);
    });
  }

  /** One middleware answering every operation; anything else goes on to `next` (404). Fails when a row of auth's has no handler. */
  dispatcher(): RequestHandler {
    const missing = ROUTES.filter((r) => r.upstream === 'auth' && !this.handlers.has(r)).map((r) => r.operationId);
    if (missing.length) throw new Error(`auth has no handler for ${missing.join(', ')} (libs/shared/src/routes)`);
    const matcher = new RouteMatcher([...this.handlers.keys()]);
    return (req, res, next) => {
      const found = matcher.find(req.method, req.path);
      if (!found) return next();
      // What the metrics and the trace name the request by, as an Express route would set it.
      (req as { route?: unknown }).route = { path: found.route.path };
      // Nothing keeps an answer of auth's unless its row says who may (an avatar's handler says how).
      if (!found.route.caching) res.setHeader('Cache-Control', 'no-store');
      this.handlers.get(found.route)!(req, res, found.params).then(undefined, next);
    };
  }

  private row(method: RouteSpec['method'], path: string, caller: 'anyone' | 'session'): RouteSpec {
    const row = ROUTES.find((r) => r.upstream === 'auth' && r.method === method && r.path === path);
    if (!row) throw new Error(`${method.toUpperCase()} ${path} is not in the route table (libs/shared/src/routes)`);
    const rowCaller = row.caller === 'anyone' ? 'anyone' : row.caller === 'user' || row.caller === 'admin' ? 'session' : row.caller;
    if (rowCaller !== caller) throw new Error(`${row.operationId}: the route table says ${row.caller} may call it, the handler is registered for ${caller}`);
    if (this.handlers.has(row)) throw new Error(`${row.operationId} has two handlers`);
    return row;
  }

  private add(row: RouteSpec, run: Run): void {
    this.handlers.set(row, run);
  }
}
