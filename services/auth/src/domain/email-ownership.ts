// Proving a user's address, and changing it. With EMAIL_VERIFICATION `soft` or `required` a new
// user starts unverified and is mailed a link; `required` keeps an unverified user from signing in.
// A change of address is asked for with the password (or a recent second-factor proof), confirmed
// from the new address, announced to the old one with a link that undoes it (and ends every
// session). Every link: 256 random bits, stored hashed, single use, expiring, only the newest of its
// kind working, mailed through the outbox. Admins are not asked to prove their address (an admin
// account is made by an admin or at bootstrap, and a mail server must not lock the first one out).
import { randomBytes } from 'node:crypto';
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../errors';
import { toAccountRecord, type Account, type AccountRecord } from './account';
import { enforceLimit, withinLimit } from './limits';
import type { ClaimedResetRequest, LinkPurpose, Needs, RequestContext } from './ports';
import { callerAccount } from './access';
import { confirmPasswordOrRecentProof } from './passwords';
import { securityNotice } from './security-notices';
import { endEverySession } from './sessions';
import { asBody, requireEmail, validateUserForgot } from './validation';

const ACTIONS: Record<LinkPurpose, string> = { verify_email: 'verify', change_email: 'confirm', undo_email_change: 'undo' };

/** Whether an account may sign in now: not disabled, and its address proven where that is required. */
export function assertMaySignIn(deps: Needs<'policy' | 'metrics'>, kind: AccountKind, account: Account): void {
  if (account.disabled) {
    deps.metrics.login(kind, 'account_disabled');
    throw AuthErrors.accountDisabled();
  }
  if (kind === 'user' && deps.policy.emailVerification === 'required' && account.emailVerified === false) {
    deps.metrics.login(kind, 'email_not_verified');
    throw AuthErrors.emailNotVerified();
  }
}

/** Whether new users are asked to prove their address. */
export const verifiesEmail = (deps: Needs<'policy'>, kind: AccountKind) => kind === 'user' && deps.policy.emailVerification !== 'off';

/** Mails the account a link that proves its current address (the older link stops working). */
export async function sendVerificationLink(deps: Needs<'links' | 'outbox' | 'policy'>, kind: AccountKind, account: Account, ctx: Pick<RequestContext, 'requestId'>): Promise<void> {
  const { token, linkUrl, expiresAt } = newLink(deps, 'verify_email', deps.policy.emailLinks.ttlSeconds);
  await deps.links.store(token, { purpose: 'verify_email', kind, accountId: account.id, email: account.email, expiresAt });
  await deps.outbox.add('account.email_verification.requested', {
    kind,
    accountId: account.id,
    email: account.email,
    name: account.name,
    linkUrl,
    expiresAt: expiresAt.toISOString(),
    requestId: ctx.requestId,
  });
}

/** Uses a verification link: the address it was sent to is proven, if it is still the account's. */
export async function verifyEmail(deps: Needs<'links' | 'accounts' | 'rateLimits' | 'metrics'>, kind: AccountKind, raw: unknown, ctx: RequestContext): Promise<AccountRecord> {
  const token = requireLinkToken(raw);
  await enforceLimit(deps, 'emailLinkIp', ctx.budget);
  const link = await deps.links.consume('verify_email', token);
  if (!link || link.kind !== kind) throw AuthErrors.linkInvalid();
  const account = await deps.accounts[kind].findById(link.accountId);
  // Sent to an address the account has since left: it proves nothing about the one it has now.
  if (!account || account.email !== link.email) throw AuthErrors.linkInvalid();
  const verified = await deps.accounts[kind].update(account.id, { emailVerified: true });
  if (!verified || verified === 'email_taken') throw AuthErrors.linkInvalid();
  return toAccountRecord(kind, verified);
}

/** Queues a new verification link for the address; the answer is the same whether or not it has an unverified account. */
export async function requestVerificationResend(deps: Needs<'rateLimits' | 'loginAttempts' | 'resetRequests' | 'metrics'>, kind: AccountKind, raw: unknown, ctx: RequestContext): Promise<void> {
  const { email } = validateUserForgot(raw);
  await enforceLimit(deps, 'forgotIp', ctx.budget);
  await enforceLimit(deps, 'forgotEmailIp', `verify:${kind}:${email}:${ctx.budget}`);
  const mail = await withinLimit(deps, 'forgotEmail', `verify:${kind}:${email}`);
  await deps.resetRequests.enqueue({ purpose: 'verify', kind, email, ip: ctx.ip, requestId: ctx.requestId, mail });
}

/** Answers a queued resend (the reset-mail worker): a link for an enabled, unverified account within the address's mail budget. */
export async function answerVerificationRequest(deps: Needs<'accounts' | 'links' | 'outbox' | 'logger' | 'policy'>, request: ClaimedResetRequest): Promise<void> {
  if (!verifiesEmail(deps, request.kind)) return;
  const account = await deps.accounts[request.kind].findByEmail(request.email);
  if (!account || account.disabled || account.emailVerified !== false) return;
  if (!request.mail) {
    deps.logger.warn({ kind: request.kind, account_id: account.id }, 'Verification mail budget of this address is spent; no link sent');
    return;
  }
  await sendVerificationLink(deps, request.kind, account, request);
}

/**
 * Asks to move the signed-in user to another address, proven by the password or a second-factor
 * proof of the last few minutes: a confirmation link goes to the new address. The answer is the
 * same whether the address is free or taken (that shows only at confirmation).
 */
export async function requestEmailChange(
  deps: Needs<'accounts' | 'links' | 'outbox' | 'policy' | 'hasher' | 'loginAttempts' | 'ceremonies' | 'rateLimits' | 'metrics'>,
  caller: { kind: AccountKind; sub: string; sid: string },
  raw: unknown,
  ctx: RequestContext,
): Promise<void> {
  const { newEmail, password } = asBody(raw);
  if (newEmail === undefined || newEmail === null || newEmail === '') throw AuthErrors.emailChangeMissing();
  const email = requireEmail(typeof newEmail === 'string' ? newEmail.trim() : newEmail);
  const account = await callerAccount(deps, caller);
  await confirmPasswordOrRecentProof(deps, caller, account, password, ctx);
  // Mail to addresses of the caller's choosing: a few an hour per account.
  if (!(await withinLimit(deps, 'forgotEmail', `change:${caller.kind}:${account.id}`))) throw AuthErrors.rateLimited(3600);
  if (email === account.email) return;
  const { token, linkUrl, expiresAt } = newLink(deps, 'change_email', deps.policy.emailLinks.ttlSeconds);
  await deps.links.store(token, { purpose: 'change_email', kind: caller.kind, accountId: account.id, email, expiresAt });
  await deps.outbox.add('account.email_change.requested', {
    kind: caller.kind,
    accountId: account.id,
    email,
    name: account.name,
    linkUrl,
    expiresAt: expiresAt.toISOString(),
    requestId: ctx.requestId,
  });
}

/** The new address confirms: the account moves to it (proven), and the old address gets a notice with an undo link. */
export async function confirmEmailChange(deps: Needs<'accounts' | 'links' | 'outbox' | 'policy' | 'rateLimits' | 'metrics'>, kind: AccountKind, raw: unknown, ctx: RequestContext): Promise<AccountRecord> {
  const token = requireLinkToken(raw);
  await enforceLimit(deps, 'emailLinkIp', ctx.budget);
  const link = await deps.links.consume('change_email', token);
  if (!link || link.kind !== kind || !link.email) throw AuthErrors.linkInvalid();
  const before = await deps.accounts[kind].findById(link.accountId);
  if (!before) throw AuthErrors.linkInvalid();
  const changed = await deps.accounts[kind].update(before.id, { email: link.email, ...(verifiesEmail(deps, kind) ? { emailVerified: true } : {}) });
  if (changed === 'email_taken') throw AuthErrors.emailTaken();
  if (!changed) throw AuthErrors.linkInvalid();
  // A verification link of the old address proves nothing any more.
  await deps.links.retireAll('verify_email', kind, changed.id);
  const undo = newLink(deps, 'undo_email_change', deps.policy.emailLinks.undoSeconds);
  await deps.links.store(undo.token, { purpose: 'undo_email_change', kind, accountId: changed.id, email: before.email, expiresAt: undo.expiresAt });
  await deps.outbox.add('account.email_change.completed', {
    kind,
    accountId: changed.id,
    email: before.email,
    newEmail: changed.email,
    name: changed.name,
    linkUrl: undo.linkUrl,
    expiresAt: undo.expiresAt.toISOString(),
    requestId: ctx.requestId,
  });
  return toAccountRecord(kind, changed);
}

/** The old address undoes a change: the account moves back to it and every session ends (whoever changed it is out). */
export async function undoEmailChange(
  deps: Needs<'accounts' | 'links' | 'outbox' | 'logger' | 'policy' | 'sessions' | 'otp' | 'rateLimits' | 'metrics'>,
  kind: AccountKind,
  raw: unknown,
  ctx: RequestContext,
): Promise<void> {
  const token = requireLinkToken(raw);
  await enforceLimit(deps, 'emailLinkIp', ctx.budget);
  const link = await deps.links.consume('undo_email_change', token);
  if (!link || link.kind !== kind || !link.email) throw AuthErrors.linkInvalid();
  const restored = await deps.accounts[kind].update(link.accountId, {
    email: link.email,
    ...(verifiesEmail(deps, kind) ? { emailVerified: true } : {}),
    endSessions: true,
  });
  if (restored === 'email_taken') throw AuthErrors.emailTaken();
  if (!restored) throw AuthErrors.linkInvalid();
  await deps.links.retireAll('all', kind, restored.id);
  await endEverySession(deps, kind, restored, ctx);
  await securityNotice(deps, kind, restored, 'email_change_undone', ctx);
}

function requireLinkToken(raw: unknown): string {
  const { token } = asBody(raw);
  if (token === undefined || token === null || token === '') throw AuthErrors.linkTokenMissing();
  if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(token)) throw AuthErrors.linkInvalid();
  return token;
}

function newLink(deps: Needs<'policy'>, purpose: LinkPurpose, ttlSeconds: number): { token: string; linkUrl: string; expiresAt: Date } {
  const token = randomBytes(32).toString('base64url');
  const url = new URL(deps.policy.emailLinks.urlBase);
  url.searchParams.set('action', ACTIONS[purpose]);
  url.searchParams.set('token', token);
  return { token, linkUrl: url.toString(), expiresAt: new Date(Date.now() + ttlSeconds * 1000) };
}
