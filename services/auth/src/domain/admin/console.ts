// What an admin reads of and does to a user beyond the contract's routes (issue 48): their sessions
// (ending one or all), their linked identities (unlinking one), and the admin accounts. An act that
// cannot be taken back asks for the admin's recent proof (a login or `reauthenticate` in the last
// STEP_UP_SECONDS), so a token lifted from an admin's browser cannot do it.
import { AuthErrors } from '../../errors';
import { isSessionId, toAccountRecord, type AccountRecord } from '../shared/account';
import { assertAdminProof } from '../shared/access';
import { assertUserId } from '../shared/account';
import { pageParams } from '../shared/validation';
import type { Needs, RequestContext } from './ports';
import { toSessionRecord, type SessionRecord } from '../account';
import { identityRecords, unlinkFrom } from '../identity';
import { announceEnded, endEverySession } from '../shared/sessions';

async function existingUser(deps: Needs<'accounts'>, userId: string) {
  assertUserId(userId);
  const user = await deps.accounts.user.findById(userId);
  if (!user) throw AuthErrors.userNotFound();
  return user;
}

export async function userSessions(deps: Needs<'accounts' | 'sessions'>, userId: string): Promise<SessionRecord[]> {
  await existingUser(deps, userId);
  return (await deps.sessions.list('user', userId)).map((s) => toSessionRecord(s));
}

export async function endUserSession(deps: Needs<'appLogouts' | 'accounts' | 'ceremonies' | 'sessions' | 'outbox' | 'activity' | 'logger'>, userId: string, sessionId: string, ctx: RequestContext): Promise<void> {
  await existingUser(deps, userId);
  await assertAdminProof(deps, ctx);
  if (!isSessionId(sessionId) || !(await deps.sessions.revokeSession('user', userId, sessionId))) throw AuthErrors.sessionNotFound();
  await announceEnded(deps, 'user', userId, [sessionId], ctx);
}

export async function endUserSessions(deps: Needs<'appLogouts' | 'accounts' | 'ceremonies' | 'sessions' | 'flows' | 'trustedBrowsers' | 'outbox' | 'activity' | 'logger'>, userId: string, ctx: RequestContext): Promise<void> {
  const user = await existingUser(deps, userId);
  await assertAdminProof(deps, ctx);
  await endEverySession(deps, 'user', user, ctx);
}

export async function userIdentities(deps: Needs<'accounts' | 'identities' | 'identityProviders'>, userId: string) {
  await existingUser(deps, userId);
  return identityRecords(deps, 'user', userId);
}

/** Unlinks a provider from a user, never their last way to sign in; the user is told by mail. */
export async function unlinkUserIdentity(
  deps: Needs<'accounts' | 'ceremonies' | 'identities' | 'factors' | 'factorMethods' | 'locks' | 'policy' | 'outbox' | 'activity' | 'logger'>,
  userId: string,
  providerId: string,
  ctx: RequestContext,
): Promise<void> {
  const user = await existingUser(deps, userId);
  await assertAdminProof(deps, ctx);
  await unlinkFrom(deps, 'user', user, providerId, ctx);
}

/** The admin accounts, a page at a time in a stable order. */
export async function listAdmins(deps: Needs<'accounts'>, params: { cursor?: unknown; limit?: unknown }): Promise<{ admins: AccountRecord[]; nextCursor: string | null }> {
  const { limit, cursor } = pageParams(params, 50);
  const found = await deps.accounts.admin.list({ after: cursor || undefined, limit: limit + 1 });
  const page = found.slice(0, limit);
  return { admins: page.map((a) => toAccountRecord('admin', a)), nextCursor: found.length > limit ? page[page.length - 1].id : null };
}
