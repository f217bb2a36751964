// A sign-in in progress, whatever it waits for, as one object: someone who is not signed in yet, the
// purpose of the flow, the account kind, what they have proven so far and what they may do next.
// Three purposes come before a session exists:
//   second_step  the password (or a provider) held and a second factor is due: `next` names the
//                factors the account may answer with (`email_code`: the code just mailed);
//   passkey      a passkey sign-in waits for the browser's answer to its WebAuthn challenge;
//   provider     a sign-in (or a link) with an identity provider waits for the provider's callback.
// One lifetime rule: a flow lives for its purpose's lifetime from its opening, and nothing extends
// it. One attempt rule: every use of a flow counts an attempt before anything is checked; a second
// step has as many as the account's guesses allow, the others one (they are taken). Once a session
// exists, what it has proven belongs to the session (the recent proof, shared/ports.ts `Ceremonies`),
// not to a flow.
import type { AccountKind } from '@acct/shared';
import type { SecondFactor } from '../factors/method';

export type FlowPurpose = 'second_step' | 'passkey' | 'provider';

/** What the person has proven so far: their password, or who they are at a provider. */
export type Proven = 'password' | `provider:${string}`;

/** What they may do next: a second factor (`email_code`: the mailed one), a passkey's answer, the provider's callback. */
export type NextStep = SecondFactor | 'email_code' | 'provider_callback';

/** An identity provider's leg of a flow, kept server-side between the start and the callback. */
export interface ProviderLeg {
  id: string;
  /** A sign-in (or sign-up), or a link to the signed-in account (`accountId`). */
  intent: 'sign_in' | 'link';
  nonce: string;
  codeVerifier: string;
  /** The allow-listed app URL the browser goes back to. */
  returnTo: string;
}

export interface SignInFlow {
  purpose: FlowPurpose;
  kind: AccountKind;
  /** Whose flow, once known: after a password, or for a link; a passkey or provider sign-in learns it at its end. */
  accountId?: string;
  /** The account's credential epoch when the flow opened (shared/credential-epoch.ts): a change since ends it. */
  credentialEpoch?: number;
  proven: Proven[];
  next: NextStep[];
  expiresAt: Date;
  /** Attempts counted so far (this one included, for a flow being used). */
  attempts: number;
  /** The WebAuthn challenge handed out for it, when a passkey may answer. */
  webauthnChallenge?: string;
  provider?: ProviderLeg;
}

export type NewSignInFlow = Omit<SignInFlow, 'expiresAt' | 'attempts'> & {
  /** The address that opened it (kept for the record). */
  ip?: string;
};

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
export const provenBy = (method: 'password' | `provider ${string}`): Proven => (method === 'password' ? 'password' : `provider:${method.slice('provider '.length)}`);
