// A signed-in account changes its own password: with the current one (a wrong one counts as a failed
// login), under the password policy and the common-password screen. Every session ends, a login that
// raced the change too (the credential epoch moves on), and the caller gets a new session in the
// same answer; the owner gets a notice by mail.
import type { AccessClaims } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { toAccountRecord, type AccountRecord } from '../shared/account';
import { callerAccount } from '../shared/access';
import { assertNotCommon, assertPasswordPolicy, confirmOwnPassword, passwordWork } from '../shared/passwords';
import type { Needs, RequestContext } from './ports';
import { securityNotice } from '../shared/security-notices';
import { endEverySession, openSession, type OpenedSession } from '../shared/sessions';
import { asBody } from '../shared/validation';
import { assertStillAwaited } from '../shared/request-deadline';
import { removeWayIn } from '../shared/ways-in';

export async function changePassword(
  deps: Needs<'appLogouts' | 'accounts' | 'hasher' | 'passwordScreen' | 'loginAttempts' | 'sessions' | 'flows' | 'trustedBrowsers' | 'tokens' | 'ceremonies' | 'outbox' | 'activity' | 'logger'>,
  caller: AccessClaims,
  raw: unknown,
  ctx: RequestContext,
): Promise<{ account: AccountRecord } & OpenedSession> {
  const { currentPassword, newPassword } = asBody(raw);
  if (typeof currentPassword !== 'string' || currentPassword === '' || newPassword === undefined || newPassword === null || newPassword === '') throw AuthErrors.changePasswordMissing();
  if (typeof newPassword !== 'string') throw AuthErrors.passwordPolicy();
  assertPasswordPolicy(newPassword);
  const kind = caller.kind;
  const account = await callerAccount(deps, caller);
  await confirmOwnPassword(deps, kind, account, currentPassword, ctx);
  assertNotCommon(deps, newPassword);
  const passwordHash = passwordWork(await deps.hasher.hash(newPassword, ctx.signal));
  assertStillAwaited(ctx);
  const changed = await deps.accounts[kind].update(account.id, { passwordHash, endSessions: true });
  if (!changed || changed === 'email_taken') throw AuthErrors.sessionRevoked();
  await endEverySession(deps, kind, changed, ctx);
  await securityNotice(deps, kind, changed, 'password_changed', ctx);
  const session = await openSession(deps, kind, changed, ctx);
  return { account: toAccountRecord(kind, changed), ...session };
}

/**
 * Turns the password off, for an account that keeps another way in (a passkey, a provider, or its
 * mailbox where the kind may sign in by email: shared/ways-in.ts). Like a change, every session and
 * pending sign-in ends (a login with the old password in progress too) and the caller gets a new
 * session; the owner is told by mail. The route asks for a recent proof.
 */
export async function removePassword(
  deps: Needs<'appLogouts' | 'accounts' | 'factors' | 'factorMethods' | 'identities' | 'locks' | 'policy' | 'sessions' | 'flows' | 'trustedBrowsers' | 'tokens' | 'ceremonies' | 'outbox' | 'activity' | 'logger'>,
  caller: AccessClaims,
  ctx: RequestContext,
): Promise<{ account: AccountRecord } & OpenedSession> {
  const kind = caller.kind;
  const account = await callerAccount(deps, caller);
  if (account.passwordHash === null) throw AuthErrors.noPassword();
  const changed = await removeWayIn(deps, kind, account, { type: 'password' }, () => deps.accounts[kind].update(account.id, { passwordHash: null, endSessions: true }));
  if (!changed || changed === 'email_taken') throw AuthErrors.sessionRevoked();
  await endEverySession(deps, kind, changed, ctx);
  await securityNotice(deps, kind, changed, 'password_removed', ctx);
  const session = await openSession(deps, kind, changed, ctx);
  return { account: toAccountRecord(kind, changed), ...session };
}

/** Whether the signed-in account has a password (its console offers to change it or, if not, how to set one). */
export async function hasPassword(deps: Needs<'accounts'>, caller: AccessClaims): Promise<boolean> {
  return (await callerAccount(deps, caller)).passwordHash !== null;
}
