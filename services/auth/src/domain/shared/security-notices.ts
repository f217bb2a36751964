// The owner's notice of every change to how an account signs in (DESIGN.md, Beyond the contract):
// an `account.security.changed` event recorded with the change, mailed by the notifier, and an entry
// in the account's activity. A failure to record either is logged and does not undo the change,
// which has happened.
import type { AccountKind, SecurityChange } from '@acct/shared';
import type { Account } from './account';
import { noteActivity } from './activity';
import type { Needs, RequestContext } from './ports';
import { spokenIn } from './language';

/** `details`: lines the notice lists under the change (what was removed and what was kept), never a secret. */
export async function securityNotice(deps: Needs<'outbox' | 'activity' | 'logger'>, kind: AccountKind, account: Account, change: SecurityChange, ctx: RequestContext, details?: string[]): Promise<void> {
  // The change is in the account's history too, with who made it when it was not the owner (an admin).
  await noteActivity(deps, ctx, { kind, accountId: account.id, type: change, details });
  await deps.outbox
    .add('account.security.changed', { kind, accountId: account.id, email: account.email, name: account.name, change, ...(details?.length ? { details } : {}), requestId: ctx.requestId, ...spokenIn(account, ctx) })
    .catch((err) => deps.logger.error({ reason: (err as Error).message, account_id: account.id, change }, 'Could not record the security notice'));
}

/**
 * The owner's notice of a new way in or second factor, naming it and where it was added from: a
 * mailbox that reads it knows what to remove once signed in (mailbox.ts), since no reset removes it.
 */
export function wayInAdded(deps: Needs<'outbox' | 'activity' | 'logger'>, kind: AccountKind, account: Account, change: 'totp_added' | 'passkey_added' | 'identity_linked', name: string, ctx: RequestContext): Promise<void> {
  const from = ctx.ip && ctx.ip !== 'unknown' ? [`Added from ${ctx.ip}${ctx.userAgent ? ` (${ctx.userAgent.slice(0, 80)})` : ''}.`] : [];
  return securityNotice(deps, kind, account, change, ctx, [`Added: ${name}`, ...from, 'If it was not you, remove it from your account page and change your password.']);
}
