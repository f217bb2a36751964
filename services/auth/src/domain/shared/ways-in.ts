// An account's ways in: its password, its passkeys and its linked identities. Two rules live here.
// One: an account never removes its last way in, by any route, in any order (one check, under one
// lock per account, shared by unlinking an identity and removing a passkey). Two: when its owner
// takes it back through the mailbox (a reset by mailed link, an undone change of address), the ways
// in and second factors added in the last week go, as whoever held the password for a moment may
// have added them; the owner's notice names what went and what stays.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { exclusively } from './exclusively';
import type { Account } from './account';
import type { Needs } from '../ports';

/** How far back a recovery through the mailbox reaches: the undo window of a change of address. */
export const RECENT_WAYS_IN_MS = 7 * 24 * 3600 * 1000;

export type WayIn = { type: 'passkey'; id: string } | { type: 'identity'; provider: string };

/**
 * Runs `remove` under the account's lock, after checking that the account keeps a way in without
 * `removing`; throws `last_sign_in_method` otherwise (and `notFound` when the account has no such way).
 */
export async function removeWayIn<T>(
  deps: Needs<'locks' | 'factors' | 'identities'>,
  kind: AccountKind,
  account: Account,
  removing: WayIn,
  remove: () => Promise<T>,
): Promise<T> {
  return exclusively(deps, `ways-in:${kind}:${account.id}`, async () => {
    const [{ passkeys }, identities] = await Promise.all([deps.factors.of(kind, account.id), deps.identities.listFor(kind, account.id)]);
    const hasIt = removing.type === 'passkey' ? passkeys.some((p) => p.id === removing.id) : identities.some((i) => i.provider === removing.provider);
    if (hasIt) {
      const left = (account.passwordHash !== null ? 1 : 0) + passkeys.length + identities.length - 1;
      if (left < 1) throw AuthErrors.lastSignInMethod();
    }
    return remove();
  });
}

/** What a recovery through the mailbox removed, and the ways in and factors left, for the owner's notice. */
export interface RecoveryReport {
  removed: string[];
  remaining: string[];
}

/** Removes the passkeys, authenticator app and identities added in the last week (the recovery codes with the last factor). */
export async function removeRecentWaysIn(deps: Needs<'factors' | 'identities'>, kind: AccountKind, account: Account, now = Date.now()): Promise<RecoveryReport> {
  const since = now - RECENT_WAYS_IN_MS;
  const set = await deps.factors.of(kind, account.id);
  const identities = await deps.identities.listFor(kind, account.id);
  const report: RecoveryReport = { removed: [], remaining: [] };
  for (const passkey of set.passkeys) {
    const recent = passkey.createdAt.getTime() > since;
    if (recent) await deps.factors.removePasskey(kind, account.id, passkey.id);
    report[recent ? 'removed' : 'remaining'].push(`passkey "${passkey.name}", added ${day(passkey.createdAt)}`);
  }
  if (set.totp?.confirmed) {
    const recent = set.totp.createdAt.getTime() > since;
    if (recent) await deps.factors.removeTotp(kind, account.id);
    report[recent ? 'removed' : 'remaining'].push(`authenticator app, added ${day(set.totp.createdAt)}`);
  }
  for (const identity of identities) {
    const recent = identity.linkedAt.getTime() > since;
    if (recent) await deps.identities.remove(kind, account.id, identity.provider);
    report[recent ? 'removed' : 'remaining'].push(`sign-in with ${identity.provider}, linked ${day(identity.linkedAt)}`);
  }
  // Codes shown to whoever made them: those of the last week go, and all of them with the last factor.
  const after = await deps.factors.of(kind, account.id);
  const recentCodes = set.recoveryCodesMadeAt !== null && set.recoveryCodesMadeAt.getTime() > since;
  if (set.recoveryCodesLeft > 0 && (recentCodes || (after.totp?.confirmed !== true && after.passkeys.length === 0))) {
    await deps.factors.removeRecoveryCodes(kind, account.id);
    report.removed.push('recovery codes');
  }
  return report;
}

/** The lines of the owner's notice: what went, then what stays. */
export const noticeLines = (report: RecoveryReport) => [...report.removed.map((r) => `Removed: ${r}`), ...report.remaining.map((r) => `Kept: ${r}`)];

const day = (date: Date) => date.toISOString().slice(0, 10);
