// Registration of admins and users.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../errors';
import { toAccountRecord, type AccountRecord } from './account';
import { isLiveAdmin } from './access';
import { enforceLimit } from './limits';
import type { Needs, RequestContext } from './ports';
import { assertNotCommon } from './passwords';
import { validateRegister } from './validation';

export async function register(
  deps: Needs<'accounts' | 'rateLimits' | 'hasher' | 'passwordScreen' | 'sessions' | 'firstAdmin' | 'policy' | 'metrics'>,
  kind: AccountKind,
  body: unknown,
  ctx: RequestContext,
): Promise<AccountRecord> {
  const input = validateRegister(body);
  await enforceLimit(deps, 'registerIp', ctx.budget);
  assertNotCommon(deps, input.password);
  let release: (() => Promise<void>) | undefined;
  if (kind === 'admin') {
    const allowed = (await isLiveAdmin(deps, ctx)) || deps.policy.adminRegistrationOpen || (release = await deps.firstAdmin.claim());
    if (!allowed) throw AuthErrors.adminRegistrationClosed();
  }
  const passwordHash = await deps.hasher.hash(input.password);
  let account;
  try {
    account = await deps.accounts[kind].create({
      email: input.email,
      name: input.name,
      passwordHash,
      role: kind,
      twoFactorEnabled: kind === 'admin' ? deps.policy.adminTwoFactor : false,
    });
  } catch (err) {
    await release?.();
    throw err;
  }
  if (account === 'email_taken') {
    await release?.();
    throw AuthErrors.emailTaken();
  }
  return toAccountRecord(kind, account);
}
