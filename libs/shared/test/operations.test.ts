// The dispatcher applies each row's proof and freshness (routes/index.ts), not the handler: a row
// that says `proof: 'recent'` and `fresh` reaches the service's guard with both, and one that says
// neither with neither.
import type { Request, Response } from 'express';
import { Operations, forEachKind, type BotGuard, type Handlers, type SessionGuard } from '../src/http/operations';
import { ROUTES } from '../src/routes';

/** Auth's operations that ran, by id. */
const ran: string[] = [];
/** A do-nothing handler for each of auth's operations (each noting that it ran). */
const doNothingHandlers = () =>
  Object.fromEntries(ROUTES.filter((r) => r.upstream === 'auth').map((r) => [r.operationId, async () => void ran.push(r.operationId)])) as unknown as Handlers<'auth'>;
/** A bot check that passes the body `{"botCheck": "solved"}` alone. */
const botGuard: BotGuard = async (req) => {
  if ((req.body as { botCheck?: unknown } | undefined)?.botCheck !== 'solved') throw new Error('bot check failed');
};

/** Auth's operations with a do-nothing handler each, and the guard's options per call. */
function authOperations() {
  const seen: Array<{ kind: string; options: Parameters<SessionGuard>[2] }> = [];
  const operations = new Operations(
    'auth',
    async (kind, _authorization, options) => {
      seen.push({ kind, options });
      return { sub: 'a', kind, role: kind, sid: 's' };
    },
    botGuard,
  );
  operations.bind(doNothingHandlers());
  return { dispatch: operations.dispatcher(), seen };
}

async function call(dispatch: ReturnType<typeof authOperations>['dispatch'], method: string, path: string, body?: unknown): Promise<void> {
  const req = { method, path, body, get: () => 'Bearer t' } as unknown as Request;
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
    expect(() => new Operations('auth', guard, botGuard).bind(missingOne)).toThrow('auth has no handler for registerUser');
    // @ts-expect-error sync is desktop's.
    expect(() => new Operations('auth', guard, botGuard).bind({ ...doNothingHandlers(), sync: async () => undefined })).toThrow("sync: not auth's in the route table");
    // Rows that ask a bot check, and no check to apply: refused at start, not let through.
    expect(() => new Operations('auth', guard).bind(doNothingHandlers())).toThrow(/the row asks a bot check, and auth has none/);
    // @ts-expect-error the latest-version check is open: its handler gets no caller.
    new Operations('desktop', guard).bind({ sync: async () => undefined, latestVersion: async (_req, _res, caller: { sub: string }, _params) => void caller });
  });

  it('runs the bot check before the handler of a row that asks one, and no other', async () => {
    const { dispatch } = authOperations();
    ran.length = 0;
    await expect(call(dispatch, 'POST', '/api/auth/user/login', { email: 'a@example.com' })).rejects.toThrow('bot check failed');
    await expect(call(dispatch, 'POST', '/api/auth/admin/forgot-password', { email: 'a@example.com', botCheck: 'guessed' })).rejects.toThrow('bot check failed');
    expect(ran).toEqual([]);
    await call(dispatch, 'POST', '/api/auth/user/login', { email: 'a@example.com', botCheck: 'solved' });
    await call(dispatch, 'POST', '/api/auth/user/refresh');
    expect(ran).toEqual(['loginUser', 'refreshUser']);
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
