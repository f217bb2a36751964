// The dispatcher applies each row's proof and freshness (routes/index.ts), not the handler: a row
// that says `proof: 'recent'` and `fresh` reaches the service's guard with both, and one that says
// neither with neither.
import type { Request, Response } from 'express';
import { Operations, type SessionGuard } from '../src/http/operations';
import { ROUTES } from '../src/routes';

/** Auth's operations with a do-nothing handler each, and the guard's options per call. */
function authOperations() {
  const seen: Array<{ kind: string; options: Parameters<SessionGuard>[2] }> = [];
  const operations = new Operations('auth', async (kind, _authorization, options) => {
    seen.push({ kind, options });
    return { sub: 'a', kind, role: kind, sid: 's' };
  });
  for (const row of ROUTES.filter((r) => r.upstream === 'auth')) {
    if (row.caller === 'anyone') operations.open(row.method, row.path, async () => undefined);
    else operations.session(row.method, row.path, async () => undefined);
  }
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
});
