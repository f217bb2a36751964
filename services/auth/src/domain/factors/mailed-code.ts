// The code mailed with an admin's login challenge, for an admin with no factor of their own. It is
// offered by naming no factor (the contract's second step), so it has no id in a login's answer.
import type { SecondStepMethod } from './method';

export const mailedCode: SecondStepMethod<'code'> = {
  id: undefined,
  answers: 'code',
  description: 'A code mailed to the address',
  // No account holds it: it is offered to an account with no factor of its own.
  listed: () => [],
  offered: ({ ownFactor }) => !ownFactor,
  async prove(_deps, challenge, proof) {
    return challenge.isMailedCode(proof.code);
  },
};
