// Admin management of user accounts: read, list and update them (fields, a password).
import { noteActivity } from '../shared/activity';
import { AuthErrors } from '../../errors';
import { assertUserId, toAccountRecord, type AccountChanges, type AccountRecord } from '../shared/account';
import { assertNotCommon, assertPasswordPolicy, passwordWork } from '../shared/passwords';
import { announceAddressMovedByAdmin, assertAddressFree, sendVerificationLink, verifiesEmail } from '../email';
import type { Needs, RequestContext } from './ports';
import { asBody, pageParams, requireEmail, requireName } from '../shared/validation';
import { endEverySession } from '../shared/sessions';

export async function updateUser(deps: Needs<'appLogouts' | 'accounts' | 'hasher' | 'passwordScreen' | 'sessions' | 'flows' | 'trustedBrowsers' | 'links' | 'outbox' | 'activity' | 'logger' | 'policy'>, id: string, raw: unknown, ctx: RequestContext): Promise<AccountRecord> {
  assertUserId(id);
  const { name, email, disabled, password } = asBody(raw);
  if (name === undefined && email === undefined && disabled === undefined && password === undefined) throw AuthErrors.nothingToUpdate();
  const changes: AccountChanges = {};
  if (name !== undefined) {
    changes.name = requireName(name);
  }
  if (email !== undefined) {
    changes.email = requireEmail(email);
    await assertAddressFree(deps, 'user', changes.email, id);
    // An admin cannot vouch for an inbox: the new address is proven by a link, as a registration's is.
    if (verifiesEmail(deps, 'user')) changes.emailVerified = false;
  }
  if (disabled !== undefined) {
    if (typeof disabled !== 'boolean') throw AuthErrors.disabledNotBoolean();
    changes.disabled = disabled;
  }
  if (password !== undefined) {
    if (typeof password !== 'string') throw AuthErrors.passwordPolicy();
    assertPasswordPolicy(password);
    assertNotCommon(deps, password);
    changes.passwordHash = passwordWork(await deps.hasher.hash(password));
  }
  // A disable or a new password ends every session, also of a login that raced this change.
  if (changes.disabled === true || changes.passwordHash) changes.endSessions = true;
  const before = changes.email !== undefined ? await deps.accounts.user.findById(id) : null;
  const updated = await deps.accounts.user.update(id, changes);
  if (updated === 'email_taken') throw AuthErrors.emailTaken();
  if (!updated) throw AuthErrors.userNotFound();
  if (before && before.email !== updated.email) await announceAddressMovedByAdmin(deps, 'user', before, updated, ctx);
  // What changed, by name (never a value), with the admin who changed it.
  const changed = [changes.name !== undefined && 'name', changes.email !== undefined && 'email', changes.disabled === true && 'disabled', changes.disabled === false && 'enabled', changes.passwordHash && 'password'];
  await noteActivity(deps, ctx, { kind: 'user', accountId: updated.id, type: 'profile_updated', details: changed.filter((c): c is string => typeof c === 'string') });
  if (changes.endSessions) await endEverySession(deps, 'user', updated, ctx);
  if (changes.emailVerified === false) await sendVerificationLink(deps, 'user', updated, ctx);
  return toAccountRecord('user', updated);
}

export async function getUser(deps: Needs<'accounts'>, id: string): Promise<AccountRecord> {
  assertUserId(id);
  const user = await deps.accounts.user.findById(id);
  if (!user) throw AuthErrors.userNotFound();
  return toAccountRecord('user', user);
}

export interface UserPage {
  users: AccountRecord[];
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

/** A page of users in a stable order, optionally those whose email or name contains `query`. */
export async function listUsers(deps: Needs<'accounts'>, params: { query?: unknown; cursor?: unknown; limit?: unknown; emailVerified?: unknown; disabled?: unknown }): Promise<UserPage> {
  const { limit, cursor } = pageParams(params, 20);
  const query = params.query ?? '';
  if (typeof query !== 'string' || query.length > 100) throw AuthErrors.badListQuery();
  const verified = params.emailVerified;
  if (verified !== undefined && verified !== 'true' && verified !== 'false') throw AuthErrors.badListVerified();
  const disabled = params.disabled;
  if (disabled !== undefined && disabled !== 'true' && disabled !== 'false') throw AuthErrors.badListDisabled();
  // One more than asked tells whether another page follows.
  const found = await deps.accounts.user.list({
    query: query.trim() || undefined,
    after: cursor || undefined,
    limit: limit + 1,
    emailVerified: verified === undefined ? undefined : verified === 'true',
    disabled: disabled === undefined ? undefined : disabled === 'true',
  });
  const page = found.slice(0, limit);
  return { users: page.map((u) => toAccountRecord('user', u)), nextCursor: found.length > limit ? page[page.length - 1].id : null };
}
