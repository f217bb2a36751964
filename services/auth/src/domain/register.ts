// Registration of admins and users.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../errors';
import { isDuplicateKey, toAccountRecord, type AccountRecord } from '../data-access/account-repository';
import { twoFactorByDefault } from '../config';
import type { AuthDomain, RequestContext } from './deps';
import { validateRegister } from './validation';

export async function register(domain: AuthDomain, kind: AccountKind, body: unknown, ctx: RequestContext): Promise<AccountRecord> {
  const input = validateRegister(body);
  await domain.rateLimits.consume('registerIp', ctx.ip);
  let release: (() => Promise<void>) | undefined;
  if (kind === 'admin') {
    const allowed = (await byLiveAdmin(domain, ctx)) || domain.config.ADMIN_REGISTRATION_OPEN || (release = await domain.claimFirstAdmin());
    if (!allowed) throw AuthErrors.adminRegistrationClosed();
  }
  const passwordHash = await domain.hasher.hash(input.password);
  try {
    const account = await domain.accounts[kind].create({
      email: input.email,
      name: input.name,
      passwordHash,
      role: kind,
      twoFactorEnabled: kind === 'admin' ? twoFactorByDefault(domain.config) : false,
    });
    return toAccountRecord(kind, account);
  } catch (err) {
    await release?.();
    if (isDuplicateKey(err)) throw AuthErrors.emailTaken();
    throw err;
  }
}

/** Whether an admin asks, with a session that is still alive (a logged-out admin's token is not enough). */
async function byLiveAdmin(domain: AuthDomain, ctx: RequestContext): Promise<boolean> {
  const actor = ctx.actor;
  return actor?.kind === 'admin' && (await domain.sessions.isActive('admin', actor.sid, actor.sub));
}
