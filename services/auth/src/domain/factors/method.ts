// What a way of answering a login's second step is. Each method is one module of this folder
// exporting one `SecondStepMethod` (with what an account does to set it up beside it), and one row of
// registry.ts: the sign-in asks the registry which methods an account may use and which one checks a
// proof, so a new method is one file and one row.
import type { FactorSet, Needs, OpenChallenge, ProofVerdict, RequestContext, SecondFactor } from './ports';
import type { SecondStepProof } from '../shared/validation';

/** What a method may use to check a proof. */
export type ProveNeeds = Needs<'factors' | 'accounts' | 'policy' | 'totp' | 'passkeys' | 'outbox' | 'activity' | 'logger'>;

/** One factor an account holds, as every list of factors names it (GET …/factors `items`). */
export interface FactorEntry {
  /** Its id within its method: a passkey's credential id, or the method's name for a one-per-account factor. */
  id: string;
  method: SecondFactor;
  /** What the person calls it: the passkey's name, else the method's description. */
  label: string;
  createdAt: string | null;
  lastUsedAt: string | null;
  /** False while an enrolment waits for its first proof (an authenticator's first code). */
  confirmed: boolean;
  /** `way-in`: a factor the person uses from day to day; `backup`: for when those are lost. */
  role: 'way-in' | 'backup';
  /** What is left of a factor that is used up one use at a time (recovery codes). */
  remaining?: number;
  /** Added while the address was unproven: it signs in by itself again once used as a second step. */
  suspended?: true;
}

export interface SecondStepMethod<T extends SecondStepProof['type'] = SecondStepProof['type']> {
  /** Its name in a login's answer; undefined for the mailed code, offered by naming no factor at all. */
  readonly id: SecondFactor | undefined;
  /** The kind of proof it checks: several may check one kind (a 6-digit code is a mailed one or an app's). */
  readonly answers: T;
  /** What a person reads it as (a list's label, a console's heading). */
  readonly description: string;
  /** The factors of this method the account holds, as a list names them (none: the mailed code, which no account holds). */
  listed(set: FactorSet): FactorEntry[];
  /** Whether an account with these factors may use it at its second step. */
  offered(set: FactorSet): boolean;
  /** Whether the proof holds for the challenge's account (`used`: a correct one already used, not a guess). */
  prove(deps: ProveNeeds, challenge: OpenChallenge, proof: Extract<SecondStepProof, { type: T }>, ctx: RequestContext): Promise<ProofVerdict>;
}
