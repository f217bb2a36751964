// A sign-in in progress, whatever it waits for, as one object: someone who is not signed in yet, the
// purpose of the flow, the account kind, what they have proven so far and what they may do next.
// Four purposes come before a session exists:
//   second_step  the password (or a provider) held and a second factor is due: `next` names the
//                factors the account may answer with (`email_code`: the code just mailed);
//   passkey      a passkey sign-in waits for the browser's answer to its WebAuthn challenge;
//   provider     a sign-in (or a link) with an identity provider waits for the provider's callback;
//   email        a sign-in by email waits for its mailed link (in the browser that asked) or code
//                (email-sign-in.ts).
// One lifetime rule: a flow lives for its purpose's lifetime from its opening, and nothing extends
// it. One attempt rule: every use of a flow counts an attempt before anything is checked; a second
// step has as many as the account's guesses allow, the others one (they are taken). Once a session
// exists, what it has proven belongs to the session (the recent proof, shared/ports.ts `Ceremonies`),
// not to a flow.
import type { AccountKind } from '@acct/shared';
import type { NewSignInFlow, NextStep, Proven, ProviderLeg } from '../shared/stores';

export type { FlowPurpose, NewSignInFlow, NextStep, Proven, ProviderLeg, SignInFlow } from '../shared/stores';

/** The second step of an account whose first factor held. */
export function secondStepFlow(kind: AccountKind, account: { id: string; credentialEpoch: number }, proven: Proven, next: NextStep[], ip: string): NewSignInFlow {
  return { purpose: 'second_step', kind, accountId: account.id, credentialEpoch: account.credentialEpoch, proven: [proven], next, ip };
}

/** A passkey sign-in, for any account of the kind: the browser offers the passkeys it holds. */
export function passkeyFlow(kind: AccountKind, webauthnChallenge: string): NewSignInFlow {
  return { purpose: 'passkey', kind, proven: [], next: ['passkey'], webauthnChallenge };
}

/** A sign-in or link with a provider; a link carries the account and its credential epoch. */
export function providerFlow(kind: AccountKind, provider: ProviderLeg, link?: { accountId: string; credentialEpoch: number }): NewSignInFlow {
  return { purpose: 'provider', kind, proven: [], next: ['provider_callback'], provider, ...(link ?? {}) };
}

/** What the first factor proved, for the flow's record. */
export const provenBy = (method: 'password' | 'email' | `provider ${string}`): Proven =>
  method === 'password' || method === 'email' ? method : `provider:${method.slice('provider '.length)}`;
