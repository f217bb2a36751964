// The one rule for everything a signed-in account starts and finishes later (a change of address
// waiting for its confirmation, a provider link waiting for its callback, a passkey registration, a
// recent proof, a reset link, a second step): it records the account's credential epoch when it
// starts, and it holds only while the epoch is the same. The epoch moves on with every credential
// change (a reset, the owner's or an admin's new password, a disable, a factor reset, an undone
// change of address), so that change ends all of them at once, wherever they wait.
import type { Account } from './account';

/** Whether what was started under `credentialEpoch` still holds for the account (undefined: started before epochs were kept). */
export const startedUnderCurrentCredentials = (account: Pick<Account, 'credentialEpoch'>, credentialEpoch: number | undefined): boolean =>
  credentialEpoch === undefined || credentialEpoch === account.credentialEpoch;
