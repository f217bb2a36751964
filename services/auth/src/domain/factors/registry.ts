// The second-step methods, in the order a login offers them. The sign-in asks this list which
// methods an account may use and which one checks a presented proof; adding a method is a row here.
import type { FactorSet, OpenChallenge, ProofVerdict, RequestContext, SecondFactor } from './ports';
import type { SecondStepProof } from '../shared/validation';
import { authenticatorApp } from './authenticator-app';
import { mailedCode } from './mailed-code';
import type { FactorEntry, ProveNeeds, SecondStepMethod } from './method';
import { passkey } from './passkey';
import { recoveryCodes } from './recovery-codes';

export const SECOND_STEP_METHODS: readonly SecondStepMethod[] = [mailedCode, authenticatorApp, passkey, recoveryCodes] as readonly SecondStepMethod[];

/** Every factor the account holds, method by method in the registry's order: the one list every view reads. */
export function factorEntries(set: FactorSet): FactorEntry[] {
  return SECOND_STEP_METHODS.flatMap((method) => method.listed(set));
}

/** The factors an account may name at its second step (none: it has no factor of its own). */
export function secondFactorsOf(set: FactorSet): SecondFactor[] {
  return SECOND_STEP_METHODS.filter((method) => method.id !== undefined && method.offered(set)).map((method) => method.id as SecondFactor);
}

/**
 * Whether the proof holds for the challenge's account: each method that checks this kind of proof is
 * asked in turn (a 6-digit code: the mailed one, then the app's), and the first that knows it answers.
 */
export async function proveSecondStep(deps: ProveNeeds, challenge: OpenChallenge, proof: SecondStepProof, ctx: RequestContext): Promise<ProofVerdict> {
  for (const method of SECOND_STEP_METHODS) {
    if (method.answers !== proof.type) continue;
    const verdict = await method.prove(deps, challenge, proof as never, ctx);
    if (verdict !== false) return verdict;
  }
  return false;
}
