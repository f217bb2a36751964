// Proving a user's address, and changing it. With EMAIL_VERIFICATION `soft` or `required` a new
// user starts unverified and is mailed a link; `required` keeps an unverified user from signing in.
// A change of address is asked for with the password (or a recent second-factor proof), confirmed
// from the new address, announced to the old one with a link that undoes it. Every link: 256 random
// bits, stored hashed, single use, expiring, mailed through the outbox; a verify or confirm link only
// the newest of its kind, and only under the credentials it was issued under (shared/credential-epoch.ts).
// Admins are not asked to prove their address (an admin account is made by an admin or at
// bootstrap, and a mail server must not lock the first one out).
//
// The undo is how the owner takes the account back from whoever had the password for a moment, so
// nothing that comes after a change can take it away: each change's undo link lives its whole week
// (EMAIL_CHANGE_UNDO_SECONDS) whatever later changes, resets or undos do; the address it returns to
// is held for the account meanwhile (no one else may register or move to it); and using it returns
// the account to that address, retires every link issued after it, ends every session and pending
// flow (the credential epoch moves on), removes the password (a reset link goes to the restored
// address), and tells the owner, naming every way in and factor the account has. Like a reset it
// removes none of them (shared/mailbox.ts): the owner, signed in again, removes what is not theirs.
// A second change while an undo is outstanding is allowed: its own undo link goes to the address it
// leaves, and the earliest undo (the owner's) still wins, since an undo retires only what came after it.
import { randomBytes } from 'node:crypto';
import { normalizeEmail, type AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { toAccountRecord, type Account, type AccountRecord } from '../shared/account';
import { enforceLimit, withinLimit } from '../shared/limits';
import { noteActivity } from '../shared/activity';
import type { ClaimedResetRequest, LinkPurpose, Needs, RequestContext } from './ports';
import { callerAccount } from '../shared/access';
import { confirmPasswordOrRecentProof } from '../shared/passwords';
import { securityNotice } from '../shared/security-notices';
import { endEverySession } from '../shared/sessions';
import { startedUnderCurrentCredentials } from '../shared/credential-epoch';
import { mailResetLink } from './password-reset';
import { addressAnswered, describeWaysIn } from '../shared/mailbox';
import { asBody, requireEmail, validateUserForgot } from '../shared/validation';
import { spokenIn } from '../shared/language';

const ACTIONS: Record<LinkPurpose, string> = { verify_email: 'verify', change_email: 'confirm', undo_email_change: 'undo', recover_factors: 'recover' };

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
export async function sendVerificationLink(deps: Needs<'links' | 'outbox' | 'policy'>, kind: AccountKind, account: Account, ctx: Pick<RequestContext, 'requestId' | 'language'>): Promise<void> {
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
    ...spokenIn(account, ctx),
  });
}

/** Uses a verification link: the address it was sent to is proven, if it is still the account's. */
export async function verifyEmail(deps: Needs<'links' | 'accounts' | 'factors' | 'factorMethods' | 'identities' | 'outbox' | 'rateLimits' | 'activity' | 'logger' | 'metrics'>, kind: AccountKind, raw: unknown, ctx: RequestContext): Promise<AccountRecord> {
  const token = requireLinkToken(raw);
  await enforceLimit(deps, 'emailLinkIp', ctx.budget);
  const link = await deps.links.consume('verify_email', token);
  if (!link || link.kind !== kind) throw AuthErrors.linkInvalid();
  const account = await deps.accounts[kind].findById(link.accountId);
  // Sent to an address the account has since left: it proves nothing about the one it has now.
  if (!account || account.email !== link.email) throw AuthErrors.linkInvalid();
  const verified = await deps.accounts[kind].update(account.id, { emailVerified: true });
  if (!verified || verified === 'email_taken') throw AuthErrors.linkInvalid();
  await addressAnswered(deps, kind, account, ctx);
  await noteActivity(deps, ctx, { kind, accountId: account.id, type: 'email_verified', details: [verified.email] });
  return toAccountRecord(kind, verified);
}

/** Queues a new verification link for the address; the answer is the same whether or not it has an unverified account. */
export async function requestVerificationResend(deps: Needs<'rateLimits' | 'loginAttempts' | 'resetRequests' | 'metrics'>, kind: AccountKind, raw: unknown, ctx: RequestContext): Promise<void> {
  const { email } = validateUserForgot(raw);
  await enforceLimit(deps, 'forgotIp', ctx.budget);
  await enforceLimit(deps, 'forgotEmailIp', `verify:${kind}:${email}:${ctx.budget}`);
  const mail = await withinLimit(deps, 'forgotEmail', `verify:${kind}:${email}`);
  await deps.resetRequests.enqueue({ purpose: 'verify', kind, email, ip: ctx.ip, requestId: ctx.requestId, ...(ctx.language ? { language: ctx.language } : {}), mail });
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
  deps: Needs<'accounts' | 'links' | 'outbox' | 'activity' | 'logger' | 'policy' | 'hasher' | 'loginAttempts' | 'ceremonies' | 'rateLimits' | 'metrics'>,
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
  await deps.links.store(token, { purpose: 'change_email', kind: caller.kind, accountId: account.id, email, expiresAt, credentialEpoch: account.credentialEpoch });
  await deps.outbox.add('account.email_change.requested', {
    kind: caller.kind,
    accountId: account.id,
    email,
    name: account.name,
    linkUrl,
    expiresAt: expiresAt.toISOString(),
    requestId: ctx.requestId,
    ...spokenIn(account, ctx),
  });
  await noteActivity(deps, ctx, { kind: caller.kind, accountId: account.id, type: 'email_change_requested', details: [`to ${email}`] });
}

/**
 * The new address confirms: the account moves to it (proven), and the old address gets a notice with
 * an undo link. Only under the credentials the change was asked under, and only if no undo or other
 * credential change lands first (the move is conditional on the epoch): an undo racing it wins.
 */
export async function confirmEmailChange(deps: Needs<'accounts' | 'links' | 'outbox' | 'activity' | 'logger' | 'policy' | 'rateLimits' | 'metrics'>, kind: AccountKind, raw: unknown, ctx: RequestContext): Promise<AccountRecord> {
  const token = requireLinkToken(raw);
  await enforceLimit(deps, 'emailLinkIp', ctx.budget);
  const link = await deps.links.consume('change_email', token);
  if (!link || link.kind !== kind || !link.email) throw AuthErrors.linkInvalid();
  const before = await deps.accounts[kind].findById(link.accountId);
  if (!before || !startedUnderCurrentCredentials(before, link.credentialEpoch)) throw AuthErrors.linkInvalid();
  await assertAddressFree(deps, kind, link.email, before.id);
  // The undo link exists before the move, so an undo of an earlier change that lands meanwhile retires it.
  const undo = newLink(deps, 'undo_email_change', deps.policy.emailLinks.undoSeconds);
  await deps.links.store(undo.token, { purpose: 'undo_email_change', kind, accountId: before.id, email: before.email, expiresAt: undo.expiresAt });
  // The new address answered its link: proven (the owner, signed in with a recent proof, moved there).
  const proven = { ...(verifiesEmail(deps, kind) ? { emailVerified: true } : {}), ...(before.addressProvenAt ? {} : { addressProvenAt: new Date() }) };
  const changed = await deps.accounts[kind].update(before.id, { email: link.email, ...proven }, { ifEpoch: before.credentialEpoch });
  if (!changed || changed === 'email_taken') {
    await deps.links.consume('undo_email_change', undo.token);
    throw changed === 'email_taken' ? AuthErrors.emailTaken() : AuthErrors.linkInvalid();
  }
  // A verification link of the old address proves nothing any more.
  await deps.links.retireAll('verify_email', kind, changed.id);
  await mailUndoNotice(deps, kind, before, changed, undo, ctx);
  await noteActivity(deps, ctx, { kind, accountId: changed.id, type: 'email_changed', details: [`from ${before.email}`, `to ${changed.email}`] });
  return toAccountRecord(kind, changed);
}

/**
 * The old address undoes a change: the account moves back to it, whatever came after, and whoever
 * changed it is out (see the head of this file for all it ends).
 */
export async function undoEmailChange(
  deps: Needs<'appLogouts' | 'accounts' | 'links' | 'resets' | 'factors' | 'factorMethods' | 'identities' | 'outbox' | 'activity' | 'logger' | 'policy' | 'sessions' | 'flows' | 'trustedBrowsers' | 'rateLimits' | 'metrics'>,
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
    // The password may be the other person's now: the owner chooses a new one from the restored address.
    passwordHash: null,
    endSessions: true,
  });
  if (restored === 'email_taken') throw AuthErrors.emailTaken();
  if (!restored) throw AuthErrors.linkInvalid();
  // Later changes' links (their confirmations and undos) and every pending confirmation or reset go; earlier undos stay.
  await deps.links.retireAll('all', kind, restored.id, { after: link.createdAt });
  await deps.links.retireAll('change_email', kind, restored.id);
  await deps.links.retireAll('verify_email', kind, restored.id);
  await endEverySession(deps, kind, restored, ctx);
  await mailResetLink(deps, kind, restored, ctx);
  await securityNotice(deps, kind, restored, 'email_change_undone', ctx, (await describeWaysIn(deps, kind, restored)).map((line) => `Kept: ${line}`));
}

/**
 * An admin moved a user to another address: the old address gets the notice and the undo link the
 * owner's own change sends, so a lifted admin token cannot quietly take an account's mail.
 */
export async function announceAddressMovedByAdmin(deps: Needs<'links' | 'outbox' | 'activity' | 'logger' | 'policy'>, kind: AccountKind, before: Account, changed: Account, ctx: RequestContext): Promise<void> {
  const undo = newLink(deps, 'undo_email_change', deps.policy.emailLinks.undoSeconds);
  await deps.links.store(undo.token, { purpose: 'undo_email_change', kind, accountId: before.id, email: before.email, expiresAt: undo.expiresAt });
  await mailUndoNotice(deps, kind, before, changed, undo, ctx);
}

/** The notice to the address an account left, with the link that undoes the move. */
function mailUndoNotice(deps: Needs<'outbox'>, kind: AccountKind, before: Account, changed: Account, undo: { linkUrl: string; expiresAt: Date }, ctx: Pick<RequestContext, 'requestId' | 'language'>): Promise<string> {
  return deps.outbox.add('account.email_change.completed', {
    kind,
    accountId: changed.id,
    email: before.email,
    newEmail: changed.email,
    name: changed.name,
    linkUrl: undo.linkUrl,
    expiresAt: undo.expiresAt.toISOString(),
    requestId: ctx.requestId,
    ...spokenIn(changed, ctx),
  });
}

/** An address held by another account's live undo link is as taken as one in use: the undo must be able to return to it. */
export async function assertAddressFree(deps: Needs<'links'>, kind: AccountKind, email: string, accountId?: string): Promise<void> {
  const holder = await deps.links.heldFor(kind, normalizeEmail(email));
  if (holder !== undefined && holder !== accountId) throw AuthErrors.emailTaken();
}

/** A mailed link's token as the pages post it: 256 bits, base64url. */
export function requireLinkToken(raw: unknown): string {
  const { token } = asBody(raw);
  if (token === undefined || token === null || token === '') throw AuthErrors.linkTokenMissing();
  if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(token)) throw AuthErrors.linkInvalid();
  return token;
}

/** A new mailed link of `purpose`: its token, the page URL that carries it (`?action=…&token=…`), and when it expires. */
export function newLink(deps: Needs<'policy'>, purpose: LinkPurpose, ttlSeconds: number): { token: string; linkUrl: string; expiresAt: Date } {
  const token = randomBytes(32).toString('base64url');
  const url = new URL(deps.policy.emailLinks.urlBase);
  url.searchParams.set('action', ACTIONS[purpose]);
  url.searchParams.set('token', token);
  return { token, linkUrl: url.toString(), expiresAt: new Date(Date.now() + ttlSeconds * 1000) };
}
