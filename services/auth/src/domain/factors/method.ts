// What a second-factor method is. Each method is one module of this folder exporting one
// `SecondStepMethod` (with what an account does to set it up beside it), and one row of registry.ts:
// the sign-in asks the registry which methods an account may use and which one checks a proof; every
// list, the recovery rules and the notices read the registry; the store keeps any method's factors.
// So a new method is its module and its row, and no rule names it.
import type { SecurityChange } from '@acct/shared';
import type { Factor, FactorEntry, Needs, OpenChallenge, ProofVerdict, RequestContext, SecondFactor } from './ports';
import type { SecondStepProof } from '../shared/validation';

/** What a method may use to check a proof. */
export type ProveNeeds = Needs<'factors' | 'accounts' | 'policy' | 'totp' | 'passkeys' | 'outbox' | 'activity' | 'logger'>;

/** What a method's list and offer read: the account's factors, and whether one of them is its own (not only a backup). */
export interface Held {
  factors: readonly Factor[];
  ownFactor: boolean;
}

export interface SecondStepMethod<T extends SecondStepProof['type'] = SecondStepProof['type']> {
  /** Its name in a login's answer and in the store; undefined for the mailed code, offered by naming no factor at all. */
  readonly id: SecondFactor | undefined;
  /** The kind of proof it checks: several may check one kind (a 6-digit code is a mailed one or an app's). */
  readonly answers: T;
  /** What a person reads it as (a list's label, a notice's line). */
  readonly description: string;
  /** `way-in`: a factor the person uses from day to day (what recovery codes stand in for); `backup`: for when those are lost. None: no account holds it. */
  readonly role?: FactorEntry['role'];
  /** Its factors sign in by themselves too, in place of the password (a passkey): each is a way in the account may not lose last. */
  readonly signsInAlone?: true;
  /** The notice a removal of one of its factors is (none: its factors are not removed one by one, as recovery codes go with the last factor). */
  readonly removedAs?: SecurityChange;
  /** The factors of this method the account holds, as a list names them. */
  listed(held: Held): FactorEntry[];
  /** Whether an account holding these factors may use it at its second step. */
  offered(held: Held): boolean;
  /** Whether the proof holds for the challenge's account (`used`: a correct one already used, not a guess). */
  prove(deps: ProveNeeds, challenge: OpenChallenge, proof: Extract<SecondStepProof, { type: T }>, ctx: RequestContext): Promise<ProofVerdict>;
}

/** The account's factors of one method. */
export const factorsOf = (held: Held, method: SecondFactor): Factor[] => held.factors.filter((f) => f.method === method);

/** A factor's entry as most methods list it: its name or the method's description, its dates, whether it waits or is suspended. */
export function entryOf(factor: Factor, description: string, role: FactorEntry['role']): FactorEntry {
  return {
    id: factor.id,
    method: factor.method,
    label: factor.name ?? description,
    createdAt: factor.createdAt.toISOString(),
    lastUsedAt: factor.lastUsedAt?.toISOString() ?? null,
    confirmed: factor.confirmed,
    role,
    ...(factor.suspended ? { suspended: true as const } : {}),
  };
}
