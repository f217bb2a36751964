// Signing in to an app through this service as an OpenID provider: the rules, whatever speaks the
// protocol (security/openid-provider.ts). A page's live session gives the app its sign-in; the app's
// first token opens a session of its own, which lists with its app beside every other session and
// ends the way they all do (the owner, an admin, a password change, a reset, a disable, a deletion);
// each later token renews that session and is refused once it ended; whatever ends the grant at the
// provider (a revocation, a code or refresh token used twice, a logout) ends the session; and an app
// that asked to be told of the end (back-channel logout) is told of every other. What a person allows
// an app of another party is kept, so the next sign-in that asks no more is not asked again.
import type { AccessClaims } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { callerAccount, hasRecentProof, requireSession } from '../shared/access';
import { noteActivity } from '../shared/activity';
import { announceEnded } from '../shared/sessions';
import type { App, AppGrant, Needs, RequestContext } from './ports';

export interface AppApproval {
  accountId: string;
  /** When the person last proved who they are (epoch seconds): the ID token's `auth_time`. */
  authTime: number;
}

/**
 * The page's session approves the app's sign-in: a live session of the app's kind, of an enabled
 * account. `freshLogin` (the app asked `prompt=login` or a `max_age` the session is past): only a
 * sign-in of the last few minutes does, else step_up_required and the page asks for one.
 */
export async function approveAppSignIn(
  deps: Needs<'sessions' | 'revocations' | 'accounts' | 'ceremonies' | 'appConsents' | 'activity' | 'logger'>,
  claims: AccessClaims | undefined,
  app: App,
  ask: {
    freshLogin: boolean;
    /**
     * An app of another party: what it asks (scopes, and a resource server's as `name:scope`),
     * whether the person allowed it on the consent page just now, and whether the app asked for the
     * question again (`prompt=consent`).
     */
    consent?: { asked: string[]; given: boolean; askAgain: boolean };
  },
  ctx: RequestContext,
): Promise<AppApproval> {
  const caller = await requireSession(deps, claims, app.kind, { fresh: true });
  const account = await callerAccount(deps, caller);
  if (account.disabled) throw AuthErrors.accountDisabled();
  const now = Math.floor(Date.now() / 1000);
  let authTime = now;
  if (ask.freshLogin) {
    if (!(await hasRecentProof(deps, caller, account))) throw AuthErrors.stepUpRequired();
  } else {
    const session = (await deps.sessions.list(app.kind, account.id)).find((s) => s.id === caller.sid);
    if (session) authTime = Math.floor(session.createdAt.getTime() / 1000);
  }
  // Another party's app: the person allows what it asks on the consent page, once; a later sign-in
  // that asks no more is not asked again, unless the app asks for the question (prompt=consent).
  const consent = app.firstParty ? undefined : (ask.consent ?? { asked: [], given: false, askAgain: true });
  if (consent && !consent.given) {
    const allowed = new Set((await deps.appConsents.find(app.kind, account.id, app.id))?.scopes ?? []);
    if (consent.askAgain || !consent.asked.every((scope) => allowed.has(scope))) throw AuthErrors.consentRequired();
  }
  if (consent?.given) await deps.appConsents.allow(app.kind, account.id, { id: app.id, name: app.name }, consent.asked);
  await noteActivity(deps, ctx, { kind: app.kind, accountId: account.id, type: 'app_signed_in', details: [app.name, ...(consent?.given ? [`allowed: ${consent.asked.join(' ')}`] : [])] });
  return { accountId: account.id, authTime };
}

/** Keeps the grant a sign-in gave, with where it came from, until its session could have ended. */
export async function recordAppGrant(deps: Needs<'appGrants'>, grantId: string, app: App, approval: AppApproval, ctx: RequestContext, ttlMs: number): Promise<void> {
  const grant: AppGrant = {
    kind: app.kind,
    accountId: approval.accountId,
    appId: app.id,
    appName: app.name,
    ...(ctx.ip && ctx.ip !== 'unknown' ? { ip: ctx.ip } : {}),
    ...(ctx.userAgent ? { userAgent: ctx.userAgent } : {}),
  };
  await deps.appGrants.save(grantId, grant, ttlMs);
}

/** What an access token given to the app now says of its session, as the product's own tokens do. */
export interface AppTokenClaims {
  sid: string;
  kind: AppGrant['kind'];
  role: string;
  /** The session's absolute end (epoch ms): no token outlives it. */
  endsAt: number;
}

/**
 * An access token is about to be given to the app: its grant's first opens the app's session, each
 * later one renews it (its idle clock, its last use). Undefined when the grant or its session ended,
 * or the account is gone or disabled: then no token is given.
 */
export async function appTokenClaims(
  deps: Needs<'appLogouts' | 'appGrants' | 'sessions' | 'accounts' | 'outbox' | 'activity' | 'logger'>,
  grantId: string,
  /** The app asked to be told when its session ends (back-channel logout), by this `sid` of its ID tokens. */
  logout?: { sid: string },
): Promise<AppTokenClaims | undefined> {
  const grant = await deps.appGrants.find(grantId);
  if (!grant) return undefined;
  if (!grant.sessionId || !grant.sessionToken) {
    const account = await deps.accounts[grant.kind].findById(grant.accountId);
    if (!account || account.disabled) return undefined;
    const opened = await deps.sessions.create({
      kind: grant.kind,
      accountId: account.id,
      role: account.role,
      credentialEpoch: account.credentialEpoch,
      ip: grant.ip,
      userAgent: grant.userAgent,
      app: { id: grant.appId, name: grant.appName },
    });
    if (opened === 'superseded') return undefined;
    if (!(await deps.appGrants.attachSession(grantId, opened.sessionId, opened.token))) {
      // Another token of the grant opened its session first: this one is not left behind.
      await deps.sessions.revokeSession(grant.kind, account.id, opened.sessionId);
      return undefined;
    }
    if (logout) await deps.appLogouts.watch(grant.kind, account.id, opened.sessionId, { appId: grant.appId, sid: logout.sid });
    await announceEnded(deps, grant.kind, account.id, opened.evicted);
    await noteActivity(deps, undefined, { kind: grant.kind, accountId: account.id, type: 'app_token_issued', details: [grant.appName] });
    return { sid: opened.sessionId, kind: grant.kind, role: account.role, endsAt: opened.endsAt };
  }
  // A renewal reads no account, as the product's own refresh does not: whatever must stop an account
  // (a disable, a password change, a reset, a deletion) ends its sessions, and then this rotation fails.
  const renewed = await deps.sessions.rotate(grant.kind, grant.sessionToken);
  if (renewed.outcome === 'reused') await announceEnded(deps, grant.kind, grant.accountId, [renewed.sessionId]);
  if (renewed.outcome !== 'rotated' && renewed.outcome !== 'grace' && renewed.outcome !== 'late_retry') return undefined;
  await deps.appGrants.updateSessionToken(grantId, renewed.token);
  return { sid: renewed.sessionId, kind: grant.kind, role: renewed.owner.role, endsAt: renewed.endsAt };
}

/** The grant, while it and its session stand: what a refresh, userinfo and an introspection ask first. */
export async function liveAppGrant(deps: Needs<'appGrants' | 'sessions'>, grantId: string | undefined): Promise<AppGrant | undefined> {
  if (!grantId) return undefined;
  const grant = await deps.appGrants.find(grantId);
  if (!grant) return undefined;
  if (grant.sessionId && !(await deps.sessions.isActive(grant.kind, grant.sessionId, grant.accountId))) return undefined;
  return grant;
}

/** The grant ended at the provider (revoked, a code or a refresh token used twice, a logout): its session ends with it. */
export async function endAppGrant(deps: Needs<'appLogouts' | 'appGrants' | 'sessions' | 'outbox' | 'activity' | 'logger'>, grantId: string, ctx?: RequestContext): Promise<void> {
  const grant = await deps.appGrants.remove(grantId);
  if (!grant?.sessionId) return;
  await noteActivity(deps, ctx, { kind: grant.kind, accountId: grant.accountId, type: 'app_access_revoked', details: [grant.appName] });
  // The app's own act ended it (or the provider's logout, which tells the apps itself): no back-channel logout for it.
  await deps.appLogouts.forget(grant.kind, grant.accountId, grant.sessionId);
  if (await deps.sessions.revokeSession(grant.kind, grant.accountId, grant.sessionId)) await announceEnded(deps, grant.kind, grant.accountId, [grant.sessionId], ctx);
}
