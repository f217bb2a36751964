// Registration of admins and users.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { toAccountRecord, type AccountRecord } from '../shared/account';
import { isLiveAdmin, isProvenAdmin } from '../shared/access';
import { enforceLimit } from '../shared/limits';
import type { Needs, RequestContext } from './ports';
import { assertAddressFree, sendVerificationLink, verifiesEmail } from '../email';
import { assertNotCommon, passwordWork } from '../shared/passwords';
import { validateRegister } from '../shared/validation';
import { assertStillAwaited } from '../shared/request-deadline';

export async function register(
  deps: Needs<'accounts' | 'rateLimits' | 'hasher' | 'passwordScreen' | 'sessions' | 'ceremonies' | 'firstAdmin' | 'links' | 'outbox' | 'activity' | 'policy' | 'metrics'>,
  kind: AccountKind,
  body: unknown,
  ctx: RequestContext,
): Promise<AccountRecord> {
  const input = validateRegister(body);
  await enforceLimit(deps, 'registerIp', ctx.budget);
  assertNotCommon(deps, input.password);
  let release: (() => Promise<void>) | undefined;
  if (kind === 'admin') {
    // An admin grants with a recent proof (the row's `proof`), as every act on another account asks.
    const allowed = (await isProvenAdmin(deps, ctx)) || deps.policy.adminRegistrationOpen || (release = await deps.firstAdmin.claim());
    if (!allowed) throw (await isLiveAdmin(deps, ctx)) ? AuthErrors.stepUpRequired() : AuthErrors.adminRegistrationClosed();
  }
  let account;
  try {
    // Held for another account's undo: taken, as an address in use is.
    await assertAddressFree(deps, kind, input.email);
    const passwordHash = passwordWork(await deps.hasher.hash(input.password, ctx.signal));
    assertStillAwaited(ctx);
    account = await deps.accounts[kind].create({
      email: input.email,
      name: input.name,
      passwordHash,
      role: kind,
      twoFactorEnabled: kind === 'admin' ? deps.policy.adminTwoFactor : false,
      ...(verifiesEmail(deps, kind) ? { emailVerified: false } : {}),
    });
  } catch (err) {
    await release?.();
    throw err;
  }
  if (account === 'email_taken') {
    await release?.();
    throw AuthErrors.emailTaken();
  }
  // In the registration's request, through the outbox: a broker outage delays the link, loses nothing.
  if (verifiesEmail(deps, kind)) await sendVerificationLink(deps, kind, account, ctx);
  return toAccountRecord(kind, account);
}
