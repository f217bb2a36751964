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

export async function changePassword(
  deps: Needs<'accounts' | 'hasher' | 'passwordScreen' | 'loginAttempts' | 'sessions' | 'flows' | 'tokens' | 'ceremonies' | 'outbox' | 'activity' | 'logger'>,
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
