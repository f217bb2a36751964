// Removing one of an account's own factors, whatever its method: behind a recent proof; a factor that
// signs in by itself never as the account's last way in (shared/ways-in.ts); the recovery codes go
// with the last factor they stand in for; the account's other sessions end; the owner is told.
import type { AccessClaims } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { removeWayIn } from '../shared/ways-in';
import { afterRemoval, requireRecentProof, type OwnNeeds } from './common';
import type { FactorRef, Needs, RequestContext } from './ports';
import { SECOND_STEP_METHODS } from './registry';

/**
 * Removes the caller's factor named by its id (and its method, where the route names one); answers how
 * many other sessions ended. `factor_not_found` for a factor the account does not hold live, or one
 * whose method does not remove its factors one by one.
 */
export async function removeFactor(deps: OwnNeeds & Needs<'locks' | 'identities'>, caller: AccessClaims, named: Pick<FactorRef, 'id'> & Partial<FactorRef>, ctx: RequestContext): Promise<number> {
  const account = await requireRecentProof(deps, caller);
  const held = (await deps.factors.list(caller.kind, caller.sub)).find((f) => f.id === named.id && (named.method === undefined || f.method === named.method));
  const method = held && SECOND_STEP_METHODS.find((m) => m.id === held.method);
  // An enrolment still waiting for its first code is not a factor yet: starting again replaces it.
  if (!held?.confirmed || !method?.removedAs) throw AuthErrors.factorNotFound();
  const ref: FactorRef = { method: held.method, id: held.id };
  const remove = () => deps.factors.remove(caller.kind, caller.sub, ref);
  const removed = method.signsInAlone ? await removeWayIn(deps, caller.kind, account, { type: 'factor', factor: ref }, remove) : await remove();
  if (!removed) throw AuthErrors.factorNotFound();
  return afterRemoval(deps, caller, account, method.removedAs, ctx);
}
