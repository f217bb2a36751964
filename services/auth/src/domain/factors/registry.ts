// The second-factor methods, in the order a login offers them and a list shows them. The sign-in asks
// this list which methods an account may use and which one checks a presented proof; the lists, the
// rules below the features (as `FactorMethods`, handed in at the composition root) and the notices
// read it. Adding a method is a row here.
import type { Factor, FactorEntry, FactorMethods, OpenChallenge, ProofVerdict, RequestContext, SecondFactor } from './ports';
import type { SecondStepProof } from '../shared/validation';
import { authenticatorApp } from './authenticator-app';
import { mailedCode } from './mailed-code';
import type { Held, ProveNeeds, SecondStepMethod } from './method';
import { passkey } from './passkey';
import { recoveryCodes } from './recovery-codes';

export const SECOND_STEP_METHODS: readonly SecondStepMethod[] = [mailedCode, authenticatorApp, passkey, recoveryCodes] as readonly SecondStepMethod[];

/** Every factor the account holds, method by method in the registry's order: the one list every view reads. */
export const factorEntries = (factors: readonly Factor[]): FactorEntry[] => factorMethods.entries(factors);

/** The factors an account may name at its second step (none: it has no factor of its own). */
export function secondFactorsOf(factors: readonly Factor[]): SecondFactor[] {
  const held = heldBy(SECOND_STEP_METHODS, factors);
  return SECOND_STEP_METHODS.filter((method) => method.id !== undefined && method.offered(held)).map((method) => method.id as SecondFactor);
}

const heldBy = (methods: readonly SecondStepMethod[], factors: readonly Factor[]): Held => ({
  factors,
  ownFactor: factors.some((f) => f.confirmed && methods.find((method) => method.id === f.method)?.role === 'way-in'),
});

/**
 * A list of methods as the rules below the features read it (`FactorMethods`): the registry's, handed
 * in at the composition root, or a test's own list, to hold that the rules name no method.
 */
export function factorMethodsOf(methods: readonly SecondStepMethod[]): FactorMethods {
  const named = (name: SecondFactor) => methods.find((method) => method.id === name);
  return {
    entries: (factors) => {
      const held = heldBy(methods, factors);
      return methods.flatMap((method) => method.listed(held));
    },
    hasOwnFactor: (factors) => heldBy(methods, factors).ownFactor,
    role: (method) => named(method)?.role,
    signsInAlone: (method) => named(method)?.signsInAlone === true,
    // A factor's line in a notice: `authenticator app, added 2026-11-28`, `passkey "Laptop", added …`, `7 recovery codes`.
    describe: (entry) => {
      const description = named(entry.method)?.description ?? entry.method;
      const what = description.toLowerCase();
      if (entry.remaining !== undefined) return `${entry.remaining} ${what}`;
      const label = entry.label !== description ? ` "${entry.label}"` : '';
      return `${what}${label}${entry.createdAt ? `, added ${entry.createdAt.slice(0, 10)}` : ''}`;
    },
  };
}

/** The registry as the rules below the features read it. */
export const factorMethods: FactorMethods = factorMethodsOf(SECOND_STEP_METHODS);

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
