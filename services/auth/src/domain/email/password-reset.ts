// Forgot and reset password. Forgot validates, rate-limits and queues the request, the same work
// whatever the email, and answers; the lookup and the mail happen later, in a worker on its own
// schedule. Reset checks the token before it spends a bcrypt hash, and uses up every link of the account.
// A reset proves the mailbox, one factor (shared/mailbox.ts): it replaces the password and ends every
// session and pending flow (the epoch moves on), and it removes no second factor or way in: the next
// sign-in still asks for them. The link holds only under the credentials it was mailed under.
import { randomBytes } from 'node:crypto';
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { enforceLimit, withinLimit } from '../shared/limits';
import type { ClaimedResetRequest, Needs, RequestContext } from './ports';
import { assertNotCommon, passwordWork } from '../shared/passwords';
import { validateAdminForgot, validateReset, validateUserForgot } from '../shared/validation';
import { endEverySession } from '../shared/sessions';
import type { Account } from '../shared/account';
import { assertStillAwaited } from '../shared/request-deadline';
import { noteActivity } from '../shared/activity';
import { addressAnswered } from '../shared/mailbox';
import { spokenIn } from '../shared/language';

/** Validates, rate-limits and queues a forgot-password request. */
export async function requestPasswordReset(deps: Needs<'rateLimits' | 'loginAttempts' | 'resetRequests' | 'metrics'>, kind: AccountKind, body: unknown, ctx: RequestContext): Promise<void> {
  const { email } = kind === 'admin' ? validateAdminForgot(body) : validateUserForgot(body);
  await enforceLimit(deps, 'forgotIp', ctx.budget);
  // Not an address: nothing can match it, so there is nothing to queue.
  if (email === undefined) return;
  // Per address and client: a stranger spends their own budget, never the owner's.
  await enforceLimit(deps, 'forgotEmailIp', `${kind}:${email}:${ctx.budget}`);
  // Per address, whoever asks: bounds the mail an address gets, without a 429 that would tell the owner
  // "no". The owner asking from an address that signed in to the account lately is not held to it, so
  // strangers spending it cannot keep the owner's own link from going out (forgotEmailIp still bounds them).
  const mail = (await deps.loginAttempts.isKnown(kind, email, ctx.budget)) || (await withinLimit(deps, 'forgotEmail', `${kind}:${email}`));
  await deps.resetRequests.enqueue({ kind, email, ip: ctx.ip, requestId: ctx.requestId, ...(ctx.language ? { language: ctx.language } : {}), mail });
}

/** Answers one queued request: a link for an enabled account within its mail budget, else nothing. */
export async function answerResetRequest(deps: Needs<'accounts' | 'resets' | 'outbox' | 'activity' | 'logger' | 'policy'>, request: ClaimedResetRequest): Promise<void> {
  const { kind, email } = request;
  const account = await deps.accounts[kind].findByEmail(email);
  if (!account || account.disabled) return;
  const accountId = account.id;
  if (!request.mail) {
    deps.logger.warn({ kind, account_id: accountId }, 'Reset mail budget of this address is spent; no link sent');
    return;
  }
  await mailResetLink(deps, kind, account, request);
}

/** Mails the account's address a reset link (the older one stops working), valid under its current credentials. */
export async function mailResetLink(deps: Needs<'resets' | 'outbox' | 'activity' | 'policy'>, kind: AccountKind, account: Account, request: Pick<RequestContext, 'requestId' | 'language'> = {}): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + deps.policy.resetTokenTtlSeconds * 1000);
  await deps.resets.store(token, kind, account.id, expiresAt, account.credentialEpoch);
  const resetUrl = new URL(deps.policy.resetUrlBase[kind]);
  resetUrl.searchParams.set('token', token);
  await deps.outbox.add('account.password_reset.requested', {
    kind,
    accountId: account.id,
    email: account.email,
    name: account.name,
    resetUrl: resetUrl.toString(),
    expiresAt: expiresAt.toISOString(),
    requestId: request.requestId,
    ...spokenIn(account, request),
  });
}

export async function resetPassword(
  deps: Needs<'appLogouts' | 'rateLimits' | 'resets' | 'hasher' | 'passwordScreen' | 'accounts' | 'sessions' | 'flows' | 'trustedBrowsers' | 'factors' | 'factorMethods' | 'identities' | 'outbox' | 'activity' | 'logger' | 'metrics'>,
  kind: AccountKind,
  body: unknown,
  ctx: RequestContext,
): Promise<void> {
  const { token, newPassword } = validateReset(body);
  await enforceLimit(deps, 'resetIp', ctx.budget);
  // A cheap read first: a bogus token costs no bcrypt hash.
  if (!(await deps.resets.find(token, kind))) throw AuthErrors.resetInvalid();
  assertNotCommon(deps, newPassword);
  const passwordHash = passwordWork(await deps.hasher.hash(newPassword, ctx.signal));
  assertStillAwaited(ctx);
  // Used up atomically: of two resets with one token, one wins.
  const used = await deps.resets.consume(token, kind);
  if (!used) throw AuthErrors.resetInvalid();
  const { accountId } = used;
  // Only under the credentials it was mailed under: a credential change since (another reset, an undo) retired it.
  const account = await deps.accounts[kind].update(accountId, { passwordHash, endSessions: true }, { ifEpoch: used.credentialEpoch });
  // A password change cannot take an address; anything but an account means it is gone.
  if (!account || account === 'email_taken') throw AuthErrors.resetInvalid();
  await deps.resets.retireAll(kind, accountId);
  await endEverySession(deps, kind, account, ctx);
  // The mailbox answered: on its first time, what was added before loses what it could do alone.
  await addressAnswered(deps, kind, account, ctx);
  await noteActivity(deps, ctx, { kind, accountId, type: 'password_reset' });
  await deps.outbox
    .add('account.password_reset.completed', { kind, accountId, email: account.email, name: account.name, requestId: ctx.requestId, ...spokenIn(account, ctx) })
    .catch((err) => deps.logger.error({ reason: (err as Error).message }, 'Could not record the password-changed event'));
}
