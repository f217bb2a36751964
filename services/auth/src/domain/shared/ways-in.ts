// An account's ways in: its password, the factors that sign in by themselves (passkeys, or any method
// the registry says does), its linked identities, and its mailbox where the deployment lets the kind
// sign in by email (an admin's only beside a second factor of their own, which that sign-in asks
// for). The rule that lives here: an account never removes its last way in, by any route, in any
// order (one check, under one lock per account, shared by unlinking an identity, removing such a
// factor and turning the password off). What a mailbox may remove is mailbox.ts's rule: nothing by
// itself.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { exclusively } from './exclusively';
import type { Account } from './account';
import type { FactorRef, Needs } from './ports';

export type WayIn = { type: 'factor'; factor: FactorRef } | { type: 'identity'; provider: string } | { type: 'password' };

/**
 * Runs `remove` under the account's lock, after checking that the account keeps a way in without
 * `removing`; throws `last_sign_in_method` otherwise (and `notFound` when the account has no such way).
 */
export async function removeWayIn<T>(
  deps: Needs<'locks' | 'factors' | 'factorMethods' | 'identities' | 'policy'>,
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
        : removing.type === 'identity'
          ? identities.some((i) => i.provider === removing.provider)
          : account.passwordHash !== null;
    if (hasIt) {
      // The mailbox signs in where the kind may sign in by email: a user by it alone, an admin only with a factor of their own after it.
      const mailbox = deps.policy.emailSignIn.kinds.includes(kind) && (kind === 'user' || deps.factorMethods.hasOwnFactor(factors)) ? 1 : 0;
      const left = (account.passwordHash !== null ? 1 : 0) + alone.length + identities.length + mailbox - 1;
      if (left < 1) throw removing.type === 'password' ? AuthErrors.lastWayInPassword() : AuthErrors.lastSignInMethod();
    }
    return remove();
  });
}
