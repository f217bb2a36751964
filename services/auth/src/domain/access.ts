// Who may call: every rule that turns a presented access token into a caller lives here. A caller
// is a token of the right kind whose session is still alive, so logout, a reset, a disable or reuse
// detection end its powers at once, not when the token expires.
import type { AccessClaims, AccountKind } from '@acct/shared';
import { AuthErrors } from '../errors';
import type { Needs, RequestContext } from './ports';

/** The caller of a route for one account kind, with a live session; 401 without a token, 403 for the other kind. */
export async function requireSession(deps: Needs<'sessions'>, claims: AccessClaims | undefined, kind: AccountKind): Promise<AccessClaims> {
  if (!claims) throw AuthErrors.authRequired();
  if (claims.kind !== kind) throw kind === 'admin' ? AuthErrors.adminOnly() : AuthErrors.userOnly();
  if (!(await deps.sessions.isActive(kind, claims.sid, claims.sub))) throw AuthErrors.sessionRevoked();
  return claims;
}

/** Whether the request comes from an admin with a live session (a logged-out admin's token is not enough). */
export async function isLiveAdmin(deps: Needs<'sessions'>, ctx: RequestContext): Promise<boolean> {
  const actor = ctx.actor;
  return actor?.kind === 'admin' && (await deps.sessions.isActive('admin', actor.sid, actor.sub));
}
