// Who may call: every rule that turns a presented access token into a caller lives here. A caller
// is a token of the right kind whose session has not ended. Whether it ended is answered from the
// replica's memory, which the revocation feed keeps within a second of every ending (logout, a
// reset, a disable, reuse detection), with no round trip per request.
import { assertSessionLive, type AccessClaims, type AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import type { Account } from './account';
import { startedUnderCurrentCredentials } from './credential-epoch';
import type { Needs, RequestContext } from './ports';

export interface AccessOptions {
  /**
   * Also read the session from the store now. Only where a fresh answer is the point: an act by an
   * admin that cannot be taken back (changing another account, creating an admin) must not ride on
   * the second a feed may take. Those routes are rare, so the read costs nothing measurable.
   */
  fresh?: boolean;
  /** The session proved the password or a factor in the last STEP_UP_SECONDS, under the account's current credentials (the route's row asks it). */
  recentProof?: boolean;
}

/** The caller of a route for one account kind, with a live session; 401 without a token, 403 for the other kind. */
export async function requireSession(deps: Needs<'sessions' | 'revocations' | 'accounts' | 'ceremonies'>, claims: AccessClaims | undefined, kind: AccountKind, options: AccessOptions = {}): Promise<AccessClaims> {
  if (!claims) throw AuthErrors.authRequired();
  if (claims.kind !== kind) throw kind === 'admin' ? AuthErrors.adminOnly() : AuthErrors.userOnly();
  await assertSessionLive(deps.revocations, claims);
  if (options.fresh && !(await deps.sessions.isActive(kind, claims.sid, claims.sub))) throw AuthErrors.sessionRevoked();
  if (options.recentProof && !(await hasRecentProof(deps, claims, await callerAccount(deps, claims)))) throw AuthErrors.stepUpRequired();
  return claims;
}

/** Whether the request comes from an admin with a live session (a logged-out admin's token is not enough); read from the store, as it grants admin powers. */
export async function isLiveAdmin(deps: Needs<'sessions'>, ctx: RequestContext): Promise<boolean> {
  const actor = ctx.actor;
  return actor?.kind === 'admin' && (await deps.sessions.isActive('admin', actor.sid, actor.sub));
}

/** A live admin whose session proved itself in the last STEP_UP_SECONDS: what a grant of admin powers asks (the registerAdmin row's `proof`). */
export async function isProvenAdmin(deps: Needs<'sessions' | 'accounts' | 'ceremonies'>, ctx: RequestContext): Promise<boolean> {
  if (!ctx.actor || !(await isLiveAdmin(deps, ctx))) return false;
  const admin = await deps.accounts.admin.findById(ctx.actor.sub);
  return admin !== null && (await hasRecentProof(deps, ctx.actor, admin));
}

/** Whether the session proved the password or a factor in the last STEP_UP_SECONDS, with no credential change since. */
export async function hasRecentProof(deps: Needs<'ceremonies'>, caller: Pick<AccessClaims, 'sid'>, account: Account): Promise<boolean> {
  const proofEpoch = await deps.ceremonies.recentProof(caller.sid);
  return proofEpoch !== undefined && startedUnderCurrentCredentials(account, proofEpoch);
}

/** The account of a caller whose session is live; an account gone meanwhile answers as an ended session. */
export async function callerAccount(deps: Needs<'accounts'>, caller: Pick<AccessClaims, 'kind' | 'sub'>): Promise<Account> {
  const account = await deps.accounts[caller.kind].findById(caller.sub);
  if (!account) throw AuthErrors.sessionRevoked();
  return account;
}

/** Refused with `step_up_required` unless the acting admin proved their password or a factor just now (an act that cannot be undone). */
export async function assertAdminProof(deps: Needs<'accounts' | 'ceremonies'>, ctx: RequestContext): Promise<void> {
  const admin = ctx.actor?.kind === 'admin' ? await deps.accounts.admin.findById(ctx.actor.sub) : null;
  if (!admin || !ctx.actor || !(await hasRecentProof(deps, ctx.actor, admin))) throw AuthErrors.stepUpRequired();
}
