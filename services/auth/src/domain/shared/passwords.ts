// The password policy: what a new password must be, checked after the spec's own validation order.
import { AuthErrors } from '../../errors';
import { errors, type AccountKind } from '@acct/shared';
import type { Account } from './account';
import type { Needs, PasswordWorkRefused, RequestContext } from './ports';
import { hasRecentProof } from './access';
import { assertStillAwaited } from './request-deadline';

const PASSWORD_MIN = 8;
const PASSWORD_MAX = 128;

/** What a new password would fail of the rules here, in their order: what a form shows while it is typed. */
export type PasswordProblem = 'too_short' | 'too_long' | 'too_common';

/** The length rule, in characters (not bytes): the one place both the change and the check read it. */
function lengthProblem(password: string): PasswordProblem | undefined {
  const length = [...password].length;
  return length < PASSWORD_MIN ? 'too_short' : length > PASSWORD_MAX ? 'too_long' : undefined;
}

/** Checked after the spec's own validation order. */
export function assertPasswordPolicy(password: string): void {
  if (lengthProblem(password)) throw AuthErrors.passwordPolicy();
}

/**
 * The rules a new password does not meet yet: the same checks the changes make (length, then the
 * list of commonly breached passwords), answered instead of thrown, the password kept nowhere.
 */
export function passwordProblems(deps: Needs<'passwordScreen'>, password: string): PasswordProblem[] {
  const length = lengthProblem(password);
  if (length) return [length];
  return deps.passwordScreen.isCommon(password) ? ['too_common'] : [];
}

/** A new password found in the list of commonly breached ones is refused (after every other rule, so the contract's answers come first). */
export function assertNotCommon(deps: Needs<'passwordScreen'>, password: string): void {
  if (deps.passwordScreen.isCommon(password)) throw AuthErrors.passwordTooCommon();
}

/**
 * The hasher's answer, or the client's: work refused for load is a 503 with Retry-After (busy, not
 * broken); work dropped because its answer is no longer awaited (the gateway's deadline passed, or
 * the client left) answers as the gateway then does, 504, so the same request gets the same answer
 * whether its deadline passed while it queued or while it hashed (request-deadline.ts).
 */
export function passwordWork<T>(answer: T | PasswordWorkRefused): T {
  if (typeof answer === 'object' && answer !== null && 'refused' in answer) throw answer.refused === 'abandoned' ? errors.upstreamTimeout() : AuthErrors.busy();
  return answer;
}

/**
 * A signed-in account proves its password again (to change it, its address, its factors): a wrong
 * one is a failed login, limited as one, so a stolen access token buys no faster guessing.
 */
export async function confirmOwnPassword(deps: Needs<'hasher' | 'loginAttempts'>, kind: AccountKind, account: Account, password: string, ctx: RequestContext): Promise<void> {
  const reservation = await deps.loginAttempts.reserve(kind, account.email, ctx.budget);
  if (!reservation.allowed) throw AuthErrors.rateLimited(reservation.retryAfterMs / 1000);
  const valid = account.passwordHash !== null && passwordWork(await deps.hasher.verify(password, account.passwordHash, ctx.signal));
  if (!valid) throw AuthErrors.invalidCredentials();
  await deps.loginAttempts.succeed(kind, account.email, ctx.budget);
  // What the password was proven for (a change, a deletion) is committed only if still awaited.
  assertStillAwaited(ctx);
}

/** The password again, or (without one) a proof of the last STEP_UP_SECONDS: a login, or `reauthenticate`. */
export async function confirmPasswordOrRecentProof(
  deps: Needs<'hasher' | 'loginAttempts' | 'ceremonies'>,
  caller: { kind: AccountKind; sid: string },
  account: Account,
  password: unknown,
  ctx: RequestContext,
): Promise<void> {
  if (typeof password === 'string' && password !== '') await confirmOwnPassword(deps, caller.kind, account, password, ctx);
  else if (!(await hasRecentProof(deps, caller, account))) throw AuthErrors.passwordOrRecentProof();
}
