// Getting back in without the second factors (shared/mailbox.ts holds the rule). From a sign-in's
// second step, whose password held, the person asks; a link goes to the account's address; using
// it schedules the removal of every second factor after ACCOUNT_RECOVERY_DELAY_SECONDS, told to the
// address at once and again before it happens. A sign-in with any of the factors, or the owner's
// console, cancels it; when it comes due, the factors go and every session ends.
import type { AccessClaims, AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import type { Account } from '../shared/account';
import { callerAccount } from '../shared/access';
import { startedUnderCurrentCredentials } from '../shared/credential-epoch';
import { enforceLimit, withinLimit } from '../shared/limits';
import { cancelPendingRecovery, describeSecondFactors } from '../shared/mailbox';
import { noteActivity } from '../shared/activity';
import { securityNotice } from '../shared/security-notices';
import { endEverySession } from '../shared/sessions';
import { asBody, flowTokenOf } from '../shared/validation';
import type { Needs, PendingRecovery, RequestContext } from './ports';
import { newLink, requireLinkToken } from './ownership';
import { spokenIn } from '../shared/language';

/** A pending recovery as the owner's console shows it. */
export interface RecoveryView {
  requestedAt: string;
  dueAt: string;
}

const view = (r: PendingRecovery): RecoveryView => ({ requestedAt: r.requestedAt.toISOString(), dueAt: r.dueAt.toISOString() });

/** Mails the account of an open second step a link that confirms the removal of its second factors. */
export async function requestFactorRecovery(deps: Needs<'flows' | 'accounts' | 'factors' | 'factorMethods' | 'links' | 'outbox' | 'activity' | 'logger' | 'policy' | 'rateLimits' | 'metrics'>, raw: unknown, ctx: RequestContext): Promise<void> {
  const challengeToken = flowTokenOf(asBody(raw), 'challenge_token');
  if (!challengeToken) throw AuthErrors.challengeTokenMissing();
  await enforceLimit(deps, 'forgotIp', ctx.budget);
  const owner = await deps.flows.ownerOf(challengeToken);
  const account = owner ? await deps.accounts[owner.kind].findById(owner.accountId) : null;
  if (!owner || !account || !startedUnderCurrentCredentials(account, owner.credentialEpoch)) throw AuthErrors.invalidChallenge();
  // An admin's mailed code is no factor of its own: there is nothing to remove.
  if ((await describeSecondFactors(deps, owner.kind, account)).length === 0) throw AuthErrors.factorNotFound();
  // A few mails an hour per account, whoever asks.
  if (!(await withinLimit(deps, 'forgotEmail', `recover:${owner.kind}:${account.id}`))) throw AuthErrors.rateLimited(3600);
  // The link page's URL as every mailed link has it (ownership.ts), for as long as a reset link lives.
  const { token, linkUrl, expiresAt } = newLink(deps, 'recover_factors', deps.policy.resetTokenTtlSeconds);
  await deps.links.store(token, { purpose: 'recover_factors', kind: owner.kind, accountId: account.id, expiresAt, credentialEpoch: account.credentialEpoch });
  await deps.outbox.add('account.factor_recovery.requested', {
    kind: owner.kind,
    accountId: account.id,
    email: account.email,
    name: account.name,
    linkUrl,
    expiresAt: expiresAt.toISOString(),
    requestId: ctx.requestId,
    ...spokenIn(account, ctx),
  });
  await noteActivity(deps, ctx, { kind: owner.kind, accountId: account.id, type: 'factor_recovery_requested' });
}

/** The mailbox confirms: the removal is scheduled (an account's pending one keeps its date), and the address is told. */
export async function confirmFactorRecovery(
  deps: Needs<'links' | 'accounts' | 'factors' | 'factorMethods' | 'recoveries' | 'outbox' | 'activity' | 'logger' | 'policy' | 'rateLimits' | 'metrics'>,
  raw: unknown,
  ctx: RequestContext,
  now = new Date(),
): Promise<RecoveryView> {
  const token = requireLinkToken(raw);
  await enforceLimit(deps, 'emailLinkIp', ctx.budget);
  const link = await deps.links.consume('recover_factors', token);
  const account = link ? await deps.accounts[link.kind].findById(link.accountId) : null;
  // Asked under credentials a reset or an undo has since replaced: it ended with them.
  if (!link || !account || !startedUnderCurrentCredentials(account, link.credentialEpoch)) throw AuthErrors.linkInvalid();
  const { delaySeconds, reminderSeconds } = deps.policy.recovery;
  const dueAt = new Date(now.getTime() + delaySeconds * 1000);
  const remindAt = new Date(Math.max(now.getTime(), dueAt.getTime() - reminderSeconds * 1000));
  const { scheduled, recovery } = await deps.recoveries.schedule({ kind: link.kind, accountId: account.id, requestedAt: now, dueAt, remindAt });
  if (scheduled) {
    await securityNotice(deps, link.kind, account, 'factor_recovery_scheduled', ctx, [`They will be removed after ${recovery.dueAt.toISOString()}:`, ...(await describeSecondFactors(deps, link.kind, account))]);
  }
  return view(recovery);
}

/** The owner's console: the pending recovery, if any. */
export async function pendingRecovery(deps: Needs<'recoveries'>, caller: Pick<AccessClaims, 'kind' | 'sub'>): Promise<RecoveryView | null> {
  const pending = await deps.recoveries.pendingFor(caller.kind, caller.sub);
  return pending ? view(pending) : null;
}

/** The owner's console cancels the pending recovery; false when none was pending. */
export async function cancelOwnFactorRecovery(deps: Needs<'accounts' | 'recoveries' | 'outbox' | 'activity' | 'logger'>, caller: AccessClaims, ctx: RequestContext): Promise<boolean> {
  const account = await callerAccount(deps, caller);
  return cancelPendingRecovery(deps, caller.kind, account, ctx, 'the account page');
}

/** What the recovery job does each pass: the reminders due, then the removals due; answers how many of each. */
export async function runFactorRecoveries(
  deps: Needs<'appLogouts' | 'recoveries' | 'accounts' | 'factors' | 'factorMethods' | 'sessions' | 'flows' | 'trustedBrowsers' | 'outbox' | 'activity' | 'logger'>,
  now = new Date(),
): Promise<{ reminded: number; completed: number }> {
  const ctx: RequestContext = { ip: 'unknown', budget: 'recovery-job' };
  let reminded = 0;
  let completed = 0;
  for (let r = await deps.recoveries.claimReminder(now); r; r = await deps.recoveries.claimReminder(now)) {
    const account = await deps.accounts[r.kind].findById(r.accountId);
    if (!account) continue;
    await securityNotice(deps, r.kind, account, 'factor_recovery_reminder', ctx, [`They will be removed after ${r.dueAt.toISOString()}.`]);
    reminded++;
  }
  for (let r = await deps.recoveries.claimDue(now); r; r = await deps.recoveries.claimDue(now)) {
    if (await completeRecovery(deps, r.kind, r.accountId, ctx)) completed++;
  }
  return { reminded, completed };
}

async function completeRecovery(deps: Needs<'appLogouts' | 'accounts' | 'factors' | 'factorMethods' | 'sessions' | 'flows' | 'trustedBrowsers' | 'outbox' | 'activity' | 'logger'>, kind: AccountKind, accountId: string, ctx: RequestContext): Promise<boolean> {
  const before = await deps.accounts[kind].findById(accountId);
  if (!before) return false;
  const removed = await describeSecondFactors(deps, kind, before);
  await deps.factors.removeAll(kind, accountId);
  // Whatever held a factor's proof ends with them: sessions, and second steps in flight.
  const account: Account | null | 'email_taken' = await deps.accounts[kind].update(accountId, { endSessions: true });
  if (!account || account === 'email_taken') return false;
  await endEverySession(deps, kind, account, ctx);
  await securityNotice(deps, kind, account, 'factor_recovery_completed', ctx, removed.map((line) => `Removed: ${line}`));
  return true;
}
