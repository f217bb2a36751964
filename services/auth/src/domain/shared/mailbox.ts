// What reading an account's mail may do to it, in one place (docs/decisions.md, "A mailbox is one
// factor"). A mailbox proves one factor, the way a password does, so it may replace a password (a
// reset) or an address (an undo), and never removes a second factor or a way in by itself: after a
// reset the second step still asks for the factors the account has. Where the owner cannot pass that
// step, the password and the mailbox together may ask for the second factors to go, and the removal
// waits (ACCOUNT_RECOVERY_DELAY_SECONDS, 72 hours by default): the address is told at once and again
// before it happens, and any sign-in that passes a second step, or the owner's console, cancels it.
// Every new way in is mailed to the owner as it is added (security-notices.ts), so whoever holds the
// mailbox knows what to remove once signed in. Apple's account recovery and AWS's root-user MFA reset
// work this way.
//
// One thing the mailbox does decide: a user's address is first proven by it (a verification link or
// a reset). Until then whoever made the account may not have been the address's owner: someone can
// register a victim's address first and add a way in of their own (pre-hijacking). So at that first
// proof every linked identity goes (an identity is never a second step: removing one gives the
// mailbox no factor), and every passkey stops signing in by itself: it still answers the second step
// after the password, so the mailbox gains nothing, and used as one it is kept. The owner is told.
import type { AccountKind } from '@acct/shared';
import type { Account } from './account';
import type { Needs, RequestContext } from './ports';
import { securityNotice } from './security-notices';

/** Cancels the account's pending factor recovery, if any, and tells the owner; `by` says what cancelled it (for the notice). */
export async function cancelPendingRecovery(
  deps: Needs<'recoveries' | 'outbox' | 'activity' | 'logger'>,
  kind: AccountKind,
  account: Account,
  ctx: RequestContext,
  by: 'a sign-in with a second factor' | 'the account page',
): Promise<boolean> {
  if (!(await deps.recoveries.cancel(kind, account.id))) return false;
  await securityNotice(deps, kind, account, 'factor_recovery_cancelled', ctx, [`Cancelled by ${by}.`]);
  return true;
}

/** Whether the account's address has ever answered a mailed link (a verification before the first-proof rule counts too). */
export const addressProven = (account: Pick<Account, 'addressProvenAt' | 'emailVerified'>) => account.addressProvenAt !== undefined || account.emailVerified === true;

/**
 * The address answered a link: on its first time, for a user, the ways in added while it was unproven
 * lose what they could do alone (see the head of this file), and the owner is told which.
 */
export async function addressAnswered(deps: Needs<'accounts' | 'factors' | 'factorMethods' | 'identities' | 'outbox' | 'activity' | 'logger'>, kind: AccountKind, account: Account, ctx: RequestContext): Promise<void> {
  if (addressProven(account)) return;
  await deps.accounts[kind].update(account.id, { addressProvenAt: new Date() });
  // Admins are made by admins: an admin's address is never a stranger's claim.
  if (kind !== 'user') return;
  // A passwordless account keeps its identities: they may be its only way in.
  const identities = account.passwordHash ? await deps.identities.listFor(kind, account.id) : [];
  for (const identity of identities) await deps.identities.remove(kind, account.id, identity.provider);
  const held = await deps.factors.list(kind, account.id);
  const methods = [...new Set(held.filter((f) => deps.factorMethods.signsInAlone(f.method)).map((f) => f.method))];
  const suspended = methods.length ? await deps.factors.suspend(kind, account.id, methods) : [];
  if (identities.length + suspended.length === 0) return;
  await securityNotice(deps, kind, account, 'unproven_ways_in_removed', ctx, [
    ...identities.map((i) => `Removed: sign-in with ${i.provider}, linked ${day(i.linkedAt)}`),
    ...deps.factorMethods
      .entries(suspended)
      .map((entry) => `${capitalised(deps.factorMethods.describe(entry))}: no longer signs in by itself; use it once as the second step after your password to keep it, or remove it`),
  ]);
}

/** The account's second factors, one line each (names and dates, never a secret): what a factor recovery removes. */
export async function describeSecondFactors(deps: Needs<'factors' | 'factorMethods'>, kind: AccountKind, account: Pick<Account, 'id'>): Promise<string[]> {
  const entries = deps.factorMethods.entries(await deps.factors.list(kind, account.id));
  // An enrolment waiting for its first code is no factor yet, nor are codes all used.
  return entries.filter((entry) => entry.confirmed && entry.remaining !== 0).map((entry) => deps.factorMethods.describe(entry));
}

/** The account's ways in and second factors, one line each, for a notice. */
export async function describeWaysIn(deps: Needs<'factors' | 'factorMethods' | 'identities'>, kind: AccountKind, account: Account): Promise<string[]> {
  const [factors, identities] = await Promise.all([describeSecondFactors(deps, kind, account), deps.identities.listFor(kind, account.id)]);
  return [...(account.passwordHash ? ['password'] : []), ...factors, ...identities.map((identity) => `sign-in with ${identity.provider}, linked ${day(identity.linkedAt)}`)];
}

export const day = (date: Date) => date.toISOString().slice(0, 10);

const capitalised = (line: string) => line.charAt(0).toUpperCase() + line.slice(1);
