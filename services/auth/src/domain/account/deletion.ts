// Deleting an account: by its owner (with the password, or a proof of the last few minutes) or, for
// a user, by an admin. Its sessions end at once (every replica refuses their access tokens within
// the revocation feed's second); the account, its avatar, factors, identities and links go here; the services
// that hold the rest (the notifier's push tokens, desktop's sync data and devices) act on the
// `account.deleted` event, idempotently, and the notifier mails the address a notice. The last
// admin cannot be deleted.
import type { AccessClaims, AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { exclusively } from '../shared/exclusively';
import type { Account } from '../shared/account';
import { assertUserId } from '../shared/account';
import { assertAdminProof, callerAccount } from '../shared/access';
import { confirmPasswordOrRecentProof } from '../shared/passwords';
import { noteActivity } from '../shared/activity';
import { tellApps } from '../shared/sessions';
import type { Needs, RequestContext } from './ports';
import { asBody } from '../shared/validation';
import { spokenIn } from '../shared/language';

type DeletionNeeds = Needs<'accounts' | 'sessions' | 'flows' | 'factors' | 'identities' | 'links' | 'resets' | 'avatars' | 'outbox' | 'appLogouts' | 'appConsents' | 'activity' | 'logger'>;

export async function deleteOwnAccount(
  deps: DeletionNeeds & Needs<'hasher' | 'loginAttempts' | 'ceremonies' | 'locks'>,
  caller: AccessClaims,
  raw: unknown,
  ctx: RequestContext,
): Promise<void> {
  const { password } = asBody(raw);
  const account = await callerAccount(deps, caller);
  await confirmPasswordOrRecentProof(deps, caller, account, password, ctx);
  if (caller.kind === 'user') return removeAccount(deps, 'user', account, ctx);
  // Counted and deleted under one lock: two admins deleting themselves at once leave one. Disabled
  // admins do not count: they cannot sign in to manage anything.
  await exclusively(deps, 'admins', async () => {
    if ((await deps.accounts.admin.countEnabled()) <= 1) throw AuthErrors.lastAdmin();
    await removeAccount(deps, 'admin', account, ctx);
  });
}

export async function deleteUser(deps: DeletionNeeds & Needs<'ceremonies'>, userId: string, ctx: RequestContext): Promise<void> {
  assertUserId(userId);
  const user = await deps.accounts.user.findById(userId);
  if (!user) throw AuthErrors.userNotFound();
  // It cannot be undone: the admin proves themselves first.
  await assertAdminProof(deps, ctx);
  await removeAccount(deps, 'user', user, ctx);
}

async function removeAccount(deps: DeletionNeeds, kind: AccountKind, account: Account, ctx: RequestContext): Promise<void> {
  // The event first, through the outbox: once it is recorded the other services drop their part
  // whatever happens next (a broker outage only delays it), and a retry of a deletion that failed
  // half-way finishes it. Recorded after the account had gone, a failure here would leave their part behind.
  await deps.outbox.add('account.deleted', { kind, accountId: account.id, email: account.email, name: account.name, requestId: ctx.requestId, ...spokenIn(account, ctx) });
  const removed = await deps.accounts[kind].remove(account.id);
  if (!removed) throw kind === 'user' ? AuthErrors.userNotFound() : AuthErrors.sessionRevoked();
  // Its history goes with it, but the deletion itself (who deleted it, when) stays in the admins' log.
  await noteActivity(deps, ctx, { kind, accountId: account.id, type: 'account_deleted' });
  await deps.activity.forget(kind, account.id, 'account_deleted').catch((err) => deps.logger.error({ reason: (err as Error).message, account_id: account.id }, 'Could not drop the activity'));
  // A session of any epoch up to the one past the account's last is refused, wherever it is checked.
  await deps.sessions.revokeAll(kind, account.id, account.credentialEpoch + 1);
  // The apps signed in through this service are told (back-channel logout); the other services act on the event.
  await tellApps(deps, kind, account.id, 'all');
  await deps.flows.cancelFor(kind, account.id);
  await Promise.all([
    deps.factors.removeAll(kind, account.id),
    deps.identities.removeAll(kind, account.id),
    deps.links.retireAll('all', kind, account.id),
    deps.resets.retireAll(kind, account.id),
    deps.appConsents.forget(kind, account.id),
  ]);
  if (removed.avatar) {
    await deps.avatars.remove(removed.avatar.fileId).catch((err) => deps.logger.warn({ reason: (err as Error).message, account_id: account.id }, 'Could not remove the avatar of a deleted account'));
  }
}
