// What an account sees of its own factors, what an admin sees of a user's (whether they exist,
// never what they are made of), and the admin's reset of a user who lost them all.
import type { AccessClaims } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { assertAdminProof } from '../shared/access';
import type { Needs, RequestContext } from './ports';
import { securityNotice } from '../shared/security-notices';
import { endEverySession } from '../shared/sessions';
import type { FactorEntry } from './ports';
import { factorEntries } from './registry';

export interface FactorList {
  /** Every factor as one list (id, method, label, dates, confirmed, way in or backup), from the methods' registry: the shape the fields below give way to. */
  items: FactorEntry[];
  totp: { enabled: boolean; pending: boolean; createdAt: string | null };
  /** `suspended`: added while the address was unproven; it signs in by itself again once used as a second step. */
  passkeys: Array<{ id: string; name: string; createdAt: string; lastUsedAt: string | null; suspended?: true }>;
  recoveryCodes: { remaining: number };
  /** Whether this deployment offers passkeys (WEBAUTHN_RP_ID set). */
  passkeysAvailable: boolean;
}

export async function listOwnFactors(deps: Needs<'factors' | 'policy'>, caller: AccessClaims): Promise<FactorList> {
  const items = factorEntries(await deps.factors.list(caller.kind, caller.sub));
  const app = items.find((e) => e.method === 'totp');
  return {
    items,
    // The shape before `items`, read from it, for one more release.
    totp: { enabled: app?.confirmed === true, pending: app?.confirmed === false, createdAt: app?.confirmed ? app.createdAt : null },
    passkeys: items
      .filter((e) => e.method === 'passkey')
      .map((p) => ({ id: p.id, name: p.label, createdAt: p.createdAt as string, lastUsedAt: p.lastUsedAt, ...(p.suspended ? { suspended: true as const } : {}) })),
    recoveryCodes: { remaining: remainingCodes(items) },
    passkeysAvailable: deps.policy.mfa.webauthn !== undefined,
  };
}

/** Whether a user has factors, never what they are made of. */
export interface UserFactorSummary {
  /** Every factor as one list, as the owner's without the ids: the shape the fields below give way to. */
  items: Array<Omit<FactorEntry, 'id'>>;
  totp: boolean;
  passkeys: number;
  /** The names the user gave their passkeys and when they were added and last used: never a credential. */
  passkeyList: Array<{ name: string; createdAt: string; lastUsedAt: string | null }>;
  recoveryCodesLeft: number;
}

export async function userFactorSummary(deps: Needs<'accounts' | 'factors'>, userId: string): Promise<UserFactorSummary> {
  const user = await deps.accounts.user.findById(userId);
  if (!user) throw AuthErrors.userNotFound();
  const entries = factorEntries(await deps.factors.list('user', userId));
  const passkeys = entries.filter((e) => e.method === 'passkey');
  return {
    items: entries.map(({ id: _id, ...entry }) => entry),
    // The shape before `items`, read from it, for one more release.
    totp: entries.some((e) => e.method === 'totp' && e.confirmed),
    passkeys: passkeys.length,
    passkeyList: passkeys.map((p) => ({ name: p.label, createdAt: p.createdAt as string, lastUsedAt: p.lastUsedAt })),
    recoveryCodesLeft: remainingCodes(entries),
  };
}

/** Removes every factor of a user (who lost them all): their sessions end and they are told by mail. */
export async function resetUserFactors(deps: Needs<'appLogouts' | 'accounts' | 'ceremonies' | 'factors' | 'factorMethods' | 'sessions' | 'flows' | 'trustedBrowsers' | 'outbox' | 'activity' | 'logger'>, userId: string, ctx: RequestContext): Promise<number> {
  const user = await deps.accounts.user.findById(userId);
  if (!user) throw AuthErrors.userNotFound();
  // It cannot be undone: the admin proves themselves first.
  await assertAdminProof(deps, ctx);
  const removed = (await deps.factors.removeAll('user', userId)).filter((f) => deps.factorMethods.role(f.method) === 'way-in').length;
  // The epoch moves on: every session ends, and a login that raced the reset with the old factors too.
  const updated = await deps.accounts.user.update(userId, { endSessions: true });
  if (!updated || updated === 'email_taken') throw AuthErrors.userNotFound();
  await endEverySession(deps, 'user', updated, ctx);
  await securityNotice(deps, 'user', updated, 'factors_reset', ctx);
  return removed;
}

/** The recovery codes left, as the list shows them (none beside no factor of the account's own). */
const remainingCodes = (entries: FactorEntry[]): number => entries.find((e) => e.method === 'recovery_code')?.remaining ?? 0;
