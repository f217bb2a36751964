// An account's ways in: its password, the factors that sign in by themselves (passkeys, or any method
// the registry says does) and its linked identities. The rule that lives here: an account never
// removes its last way in, by any route, in any order (one check, under one lock per account, shared
// by unlinking an identity and removing such a factor). What a mailbox may
// remove is mailbox.ts's rule: nothing by itself.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { exclusively } from './exclusively';
import type { Account } from './account';
import type { FactorRef, Needs } from './ports';

export type WayIn = { type: 'factor'; factor: FactorRef } | { type: 'identity'; provider: string };

/**
 * Runs `remove` under the account's lock, after checking that the account keeps a way in without
 * `removing`; throws `last_sign_in_method` otherwise (and `notFound` when the account has no such way).
 */
export async function removeWayIn<T>(
  deps: Needs<'locks' | 'factors' | 'factorMethods' | 'identities'>,
  kind: AccountKind,
  account: Account,
  removing: WayIn,
  remove: () => Promise<T>,
): Promise<T> {
  return exclusively(deps, `ways-in:${kind}:${account.id}`, async () => {
    const [factors, identities] = await Promise.all([deps.factors.list(kind, account.id), deps.identities.listFor(kind, account.id)]);
    const alone = factors.filter((f) => f.confirmed && deps.factorMethods.signsInAlone(f.method));
    const hasIt =
      removing.type === 'factor'
        ? alone.some((f) => f.method === removing.factor.method && f.id === removing.factor.id)
        : identities.some((i) => i.provider === removing.provider);
    if (hasIt) {
      const left = (account.passwordHash !== null ? 1 : 0) + alone.length + identities.length - 1;
      if (left < 1) throw AuthErrors.lastSignInMethod();
    }
    return remove();
  });
}
