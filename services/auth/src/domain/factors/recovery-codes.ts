// Recovery codes: ten single-use codes that stand in for an account's authenticator or passkeys.
// They come with the account's first factor and go with its last.
import { randomInt } from 'node:crypto';
import type { AccessClaims, AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import type { Needs, RequestContext } from './ports';
import { securityNotice } from '../shared/security-notices';
import { requireRecentProof, type OwnNeeds } from './common';
import { entryOf, factorsOf, type SecondStepMethod } from './method';

/** An account holds one set of codes: the factor's id is the method's name. */
const CODES = { method: 'recovery_code', id: 'recovery_code' } as const;

const RECOVERY_CODE_COUNT = 10;
/** 32 letters and digits without the ones read alike (0/o, 1/l): 5 bits a character, 50 a code. */
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

export const recoveryCodes: SecondStepMethod<'recovery'> = {
  id: 'recovery_code',
  answers: 'recovery',
  description: 'Recovery codes',
  role: 'backup',
  // Codes left over from factors since removed are no factor: they are listed only beside one.
  listed: (held) =>
    held.ownFactor
      ? factorsOf(held, 'recovery_code').map((codes) => ({ ...entryOf(codes, 'Recovery codes', 'backup'), remaining: codes.codesLeft }))
      : [],
  offered: (held) => held.ownFactor && factorsOf(held, 'recovery_code').some((codes) => codes.codesLeft > 0),
  /** One of the account's unused codes, used up; the owner is told one was used. */
  async prove(deps, { kind, accountId }, proof, ctx) {
    const left = await deps.factors.spend(kind, accountId, CODES, proof.code);
    if (left === 'used') return 'used';
    if (left === undefined) return false;
    const account = await deps.accounts[kind].findById(accountId);
    if (account) await securityNotice(deps, kind, account, 'recovery_code_used', ctx);
    return true;
  },
};

/** A new set of codes for the account (the old set ends), shown once as `xxxxx-xxxxx`. */
export async function issueRecoveryCodes(deps: Needs<'factors'>, kind: AccountKind, accountId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
  // Stored without the dash, as presented codes are compared.
  await deps.factors.add(kind, accountId, { ...CODES, confirmed: true, codes: codes.map((c) => c.replace('-', '')) }, 'any');
  return codes;
}

/** A new set of recovery codes; the old set ends. Only for an account with a factor they stand in for. */
export async function regenerateRecoveryCodes(deps: OwnNeeds, caller: AccessClaims, ctx: RequestContext): Promise<string[]> {
  const account = await requireRecentProof(deps, caller);
  if (!deps.factorMethods.hasOwnFactor(await deps.factors.list(caller.kind, caller.sub))) throw AuthErrors.noFactorForRecoveryCodes();
  const codes = await issueRecoveryCodes(deps, caller.kind, caller.sub);
  await securityNotice(deps, caller.kind, account, 'recovery_codes_regenerated', ctx);
  return codes;
}
