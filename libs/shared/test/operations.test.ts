// The dispatcher applies each row's proof and freshness (routes/index.ts), not the handler: a row
// that says `proof: 'recent'` and `fresh` reaches the service's guard with both, and one that says
// neither with neither.
import type { Request, Response } from 'express';
import { Operations, forEachKind, type Handlers, type SessionGuard } from '../src/http/operations';
import { ROUTES } from '../src/routes';

/** A do-nothing handler for each of auth's operations. */
const doNothingHandlers = () => Object.fromEntries(ROUTES.filter((r) => r.upstream === 'auth').map((r) => [r.operationId, async () => undefined])) as unknown as Handlers<'auth'>;

/** Auth's operations with a do-nothing handler each, and the guard's options per call. */
function authOperations() {
  const seen: Array<{ kind: string; options: Parameters<SessionGuard>[2] }> = [];
  const operations = new Operations('auth', async (kind, _authorization, options) => {
    seen.push({ kind, options });
    return { sub: 'a', kind, role: kind, sid: 's' };
  });
  operations.bind(doNothingHandlers());
  return { dispatch: operations.dispatcher(), seen };
}

async function call(dispatch: ReturnType<typeof authOperations>['dispatch'], method: string, path: string): Promise<void> {
  const req = { method, path, get: () => 'Bearer t' } as unknown as Request;
  const res = { setHeader: () => undefined } as unknown as Response;
  let failed: unknown;
  dispatch(req, res, (err?: unknown) => (failed = err ?? new Error(`${method} ${path} is no operation`)));
  // The handler runs on; its guard has been asked by the next turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
  if (failed) throw failed;
}

describe('Operations', () => {
  it('hands the guard the row’s fresh read and recent proof: an admin’s change of a user asks both, a read asks neither', async () => {
    const { dispatch, seen } = authOperations();
    await call(dispatch, 'PUT', '/api/admin/users/0123456789abcdef01234567');
    await call(dispatch, 'GET', '/api/admin/users/0123456789abcdef01234567');
    await call(dispatch, 'POST', '/api/auth/user/factors/totp');
    expect(seen).toEqual([
      { kind: 'admin', options: { fresh: true, recentProof: true } },
      { kind: 'admin', options: { fresh: false, recentProof: false } },
      { kind: 'user', options: { fresh: false, recentProof: true } },
    ]);
  });

  it('binds by operation id: a handler missing or one the table does not give the service fails at start, and the compiler says so first', () => {
    const guard: SessionGuard = async () => ({ sub: 'a', kind: 'user', role: 'user', sid: 's' });
    const { registerUser: _left, ...missingOne } = doNothingHandlers();
    // @ts-expect-error registerUser has no handler.
    expect(() => new Operations('auth', guard).bind(missingOne)).toThrow('auth has no handler for registerUser');
    // @ts-expect-error sync is desktop's.
    expect(() => new Operations('auth', guard).bind({ ...doNothingHandlers(), sync: async () => undefined })).toThrow("sync: not auth's in the route table");
    // @ts-expect-error the latest-version check is open: its handler gets no caller.
    new Operations('desktop', guard).bind({ sync: async () => undefined, latestVersion: async (_req, _res, caller: { sub: string }, _params) => void caller });
  });

  it('makes the handlers of a route the table has for each kind from one function of the kind', async () => {
    const made = forEachKind({ user: 'loginUser', admin: 'loginAdmin' }, (kind) => async (_req: Request, res: Response) => void res.setHeader('kind', kind));
    const kinds: string[] = [];
    const res = { setHeader: (_name: string, value: string) => kinds.push(value) } as unknown as Response;
    await made.loginUser({} as Request, res);
    await made.loginAdmin({} as Request, res);
    expect(kinds).toEqual(['user', 'admin']);
  });
});
