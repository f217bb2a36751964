// Forgot and reset password. Forgot answers the same words in the same time whatever the email:
// validation and rate limits run first, and the lookup and mail happen after the answer.
import { randomBytes } from 'node:crypto';
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../errors';
import { normalizeEmail } from '../data-access/account-repository';
import type { AuthDomain, RequestContext } from './deps';
import { validateAdminForgot, validateReset, validateUserForgot } from './validation';

/** Validates and rate-limits; answers the slow work, for the caller to run after answering. */
export async function requestPasswordReset(domain: AuthDomain, kind: AccountKind, body: unknown, ctx: RequestContext): Promise<() => Promise<void>> {
  const { email } = kind === 'admin' ? validateAdminForgot(body) : validateUserForgot(body);
  await domain.rateLimits.consume('forgotIp', ctx.ip);
  if (email === undefined) return async () => undefined;
  await domain.rateLimits.consume('forgotEmail', `${kind}:${normalizeEmail(email)}`);
  return () => issueResetLink(domain, kind, email, ctx);
}

async function issueResetLink(domain: AuthDomain, kind: AccountKind, email: string, ctx: RequestContext): Promise<void> {
  const account = await domain.accounts[kind].findByEmail(email);
  if (!account || account.disabled) return;
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + domain.config.RESET_TOKEN_TTL_SECONDS * 1000);
  await domain.resets.store(token, kind, account._id.toString(), expiresAt);
  const base = kind === 'admin' ? domain.config.RESET_URL_BASE_ADMIN : domain.config.RESET_URL_BASE_USER;
  const resetUrl = new URL(base);
  resetUrl.searchParams.set('token', token);
  await domain.outbox.add('account.password_reset.requested', {
    kind,
    accountId: account._id.toString(),
    email: account.email,
    name: account.name,
    resetUrl: resetUrl.toString(),
    expiresAt: expiresAt.toISOString(),
    requestId: ctx.requestId,
  });
}

export async function resetPassword(domain: AuthDomain, kind: AccountKind, body: unknown, ctx: RequestContext): Promise<void> {
  const { token, newPassword } = validateReset(body);
  const passwordHash = await domain.hasher.hash(newPassword);
  const accountId = await domain.resets.consume(token, kind);
  if (!accountId) throw AuthErrors.resetInvalid();
  const account = await domain.accounts[kind].update(accountId, { passwordHash });
  if (!account) throw AuthErrors.resetInvalid();
  await domain.sessions.revokeAll(kind, accountId);
  await domain.outbox
    .add('account.password_reset.completed', { kind, accountId, email: account.email, name: account.name, requestId: ctx.requestId })
    .catch((err) => domain.logger.error({ reason: (err as Error).message }, 'Could not record the password-changed event'));
}
