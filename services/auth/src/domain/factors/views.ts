// What an account sees of its own factors, what an admin sees of a user's (whether they exist,
// never what they are made of), and the admin's reset of a user who lost them all.
import type { AccessClaims } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { assertAdminProof } from '../shared/access';
import type { Needs, RequestContext } from './ports';
import { securityNotice } from '../shared/security-notices';
import { endEverySession } from '../shared/sessions';
import { hasOwnFactor } from './common';
import type { FactorEntry } from './method';
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
  const set = await deps.factors.of(caller.kind, caller.sub);
  return {
    items: factorEntries(set),
    totp: { enabled: set.totp?.confirmed === true, pending: set.totp?.confirmed === false, createdAt: set.totp?.confirmed ? set.totp.createdAt.toISOString() : null },
    passkeys: set.passkeys.map((p) => ({ id: p.id, name: p.name, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null, ...(p.suspended ? { suspended: true as const } : {}) })),
    recoveryCodes: { remaining: hasOwnFactor(set) ? set.recoveryCodesLeft : 0 },
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
  const set = await deps.factors.of('user', userId);
  return {
    items: factorEntries(set).map(({ id: _id, ...entry }) => entry),
    totp: set.totp?.confirmed === true,
    passkeys: set.passkeys.length,
    passkeyList: set.passkeys.map((p) => ({ name: p.name, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null })),
    recoveryCodesLeft: hasOwnFactor(set) ? set.recoveryCodesLeft : 0,
  };
}

/** Removes every factor of a user (who lost them all): their sessions end and they are told by mail. */
export async function resetUserFactors(deps: Needs<'accounts' | 'ceremonies' | 'factors' | 'sessions' | 'flows' | 'outbox' | 'activity' | 'logger'>, userId: string, ctx: RequestContext): Promise<number> {
  const user = await deps.accounts.user.findById(userId);
  if (!user) throw AuthErrors.userNotFound();
  // It cannot be undone: the admin proves themselves first.
  await assertAdminProof(deps, ctx);
  const removed = await deps.factors.removeAll('user', userId);
  // The epoch moves on: every session ends, and a login that raced the reset with the old factors too.
  const updated = await deps.accounts.user.update(userId, { endSessions: true });
  if (!updated || updated === 'email_taken') throw AuthErrors.userNotFound();
  await endEverySession(deps, 'user', updated, ctx);
  await securityNotice(deps, 'user', updated, 'factors_reset', ctx);
  return removed;
}
