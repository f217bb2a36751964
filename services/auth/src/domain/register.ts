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
    const allowed = ctx.actor?.kind === 'admin' || domain.config.ADMIN_REGISTRATION_OPEN || (release = await domain.claimFirstAdmin());
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
