// A recent proof for a session (step-up): the password, or a code of the account's authenticator.
import type { AccessClaims } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { callerAccount } from '../shared/access';
import { enforceLimit } from '../shared/limits';
import { confirmOwnPassword } from '../shared/passwords';
import type { Needs, RequestContext } from './ports';
import { asBody, requireCode } from '../shared/validation';
import { useAuthenticatorCode } from './authenticator-app';
import { checkCodeWithinBudget } from './common';

/**
 * A recent proof for the session: the password (counted like a login attempt) or a code of the
 * account's authenticator. A login is one too, for the same time.
 */
export async function reauthenticate(
  deps: Needs<'accounts' | 'factors' | 'totp' | 'ceremonies' | 'hasher' | 'loginAttempts' | 'codeGuesses' | 'rateLimits' | 'metrics'>,
  caller: AccessClaims,
  raw: unknown,
  ctx: RequestContext,
): Promise<void> {
  const { password, code } = asBody(raw);
  const account = await callerAccount(deps, caller);
  if (typeof password === 'string' && password !== '') {
    await confirmOwnPassword(deps, caller.kind, account, password, ctx);
  } else if (code !== undefined) {
    await enforceLimit(deps, 'otpIp', ctx.budget);
    const valid = requireCode(code);
    await checkCodeWithinBudget(deps, caller.kind, caller.sub, () => useAuthenticatorCode(deps, caller.kind, caller.sub, valid));
  } else {
    throw AuthErrors.reauthenticateMissing();
  }
  await deps.ceremonies.markProof(caller.sid, account.credentialEpoch);
}
