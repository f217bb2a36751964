// Passkeys (WebAuthn, the library behind the PasskeyCeremonies port): registered behind a recent
// proof, used as the second step or in place of the password (sign-in/passkey-sign-in.ts): a way in,
// so never removed as the account's last (removal.ts).
import { randomBytes } from 'node:crypto';
import type { AccessClaims, AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { startedUnderCurrentCredentials } from '../shared/credential-epoch';
import { enforceLimit } from '../shared/limits';
import type { Factor, Needs, PasskeyCredential, PasskeyOptions, RequestContext } from './ports';
import { wayInAdded } from '../shared/security-notices';
import { asBody, flowTokenOf, requirePasskeyAnswer, type PasskeyAnswer } from '../shared/validation';
import { relyingPartyFor, requireRecentProof, requireWebauthn, type OwnNeeds } from './common';
import { entryOf, factorsOf, type SecondStepMethod } from './method';
import { issueRecoveryCodes } from './recovery-codes';

export const passkey: SecondStepMethod<'passkey'> = {
  id: 'passkey',
  answers: 'passkey',
  description: 'Passkey',
  role: 'way-in',
  signsInAlone: true,
  removedAs: 'passkey_removed',
  listed: (held) => factorsOf(held, 'passkey').map((p) => entryOf(p, 'Passkey', 'way-in')),
  offered: (held) => factorsOf(held, 'passkey').length > 0,
  /** The account's passkey answering the WebAuthn challenge handed out for this step. */
  async prove(deps, challenge, proof) {
    if (!challenge.webauthnChallenge) return false;
    // A second step after the password: a suspended passkey answers it, and is kept from then on.
    const owner = await verifyAssertion(deps, challenge.kind, proof.response, challenge.webauthnChallenge, 'second_step');
    return owner?.accountId === challenge.accountId;
  },
};

/** A passkey factor as the ceremonies read it: its credential id and public key. */
const credentialOf = (factor: Factor): PasskeyCredential => ({
  id: factor.id,
  publicKey: String(factor.details.publicKey),
  counter: Math.max(factor.counter, 0),
  transports: Array.isArray(factor.details.transports) ? (factor.details.transports as string[]) : [],
});

/** The account's passkeys, as the ceremonies read them. */
async function credentialsOf(deps: Needs<'factors'>, kind: AccountKind, accountId: string): Promise<PasskeyCredential[]> {
  return (await deps.factors.list(kind, accountId)).filter((f) => f.method === 'passkey').map(credentialOf);
}

/** Options for answering a pending second step with a passkey: the account's own passkeys only. */
export async function secondStepPasskeyOptions(deps: Needs<'flows' | 'factors' | 'policy' | 'passkeys' | 'rateLimits' | 'metrics'>, raw: unknown, ctx: RequestContext): Promise<PasskeyOptions> {
  const rp = requireWebauthn(deps);
  await enforceLimit(deps, 'otpIp', ctx.budget);
  const challengeToken = flowTokenOf(asBody(raw), 'challenge_token');
  if (!challengeToken) throw AuthErrors.challengeTokenMissing();
  const challenge = randomBytes(32).toString('base64url');
  const owner = await deps.flows.attachWebauthn(challengeToken, challenge);
  if (!owner) throw AuthErrors.invalidChallenge();
  return deps.passkeys.authenticationOptions(rp, { challenge, allow: await credentialsOf(deps, owner.kind, owner.accountId) });
}

/**
 * The passkey's owner when its answer verifies against `challenge`; its counter moves on. Alone (in
 * place of the password) a suspended passkey answers nothing; as a second step it does, and is kept.
 */
export async function verifyAssertion(
  deps: Needs<'factors' | 'policy' | 'passkeys' | 'logger'>,
  kind: AccountKind,
  answer: PasskeyAnswer,
  challenge: string,
  use: 'alone' | 'second_step',
): Promise<{ accountId: string } | undefined> {
  const rp = relyingPartyFor(deps, requireWebauthn(deps), answer);
  const stored = await deps.factors.find('passkey', answer.id);
  if (!stored || stored.kind !== kind || (use === 'alone' && stored.suspended)) return undefined;
  const verified = await deps.passkeys.verifyAuthentication(rp, answer, challenge, credentialOf(stored));
  if (!verified) return undefined;
  await deps.factors.use(kind, stored.accountId, stored, verified.counter, { keep: use === 'second_step' && stored.suspended === true });
  return { accountId: stored.accountId };
}

/** Registration options for a new passkey of the caller (their own passkeys excluded). */
export async function passkeyRegistrationOptions(deps: OwnNeeds & Needs<'passkeys'>, caller: AccessClaims): Promise<PasskeyOptions> {
  const rp = requireWebauthn(deps);
  const account = await requireRecentProof(deps, caller);
  const passkeys = await credentialsOf(deps, caller.kind, caller.sub);
  // An opaque handle, the same for every passkey of the account; never the address.
  const user = { name: account.email, displayName: account.name, handle: `${caller.kind}:${account.id}` };
  const options = await deps.passkeys.registrationOptions(rp, user, passkeys);
  await deps.ceremonies.beginRegistration(caller.sid, { challenge: options.challenge, kind: caller.kind, accountId: caller.sub, credentialEpoch: account.credentialEpoch });
  return options;
}

/** Stores the passkey the browser created for the session's ceremony; the account's first factor comes with recovery codes. */
export async function registerPasskey(
  deps: OwnNeeds & Needs<'passkeys'>,
  caller: AccessClaims,
  raw: unknown,
  ctx: RequestContext,
): Promise<{ passkey: { id: string; name: string; createdAt: string }; recoveryCodes?: string[] }> {
  const rp = requireWebauthn(deps);
  const account = await requireRecentProof(deps, caller);
  const { name, passkey: presented } = asBody(raw);
  if (name !== undefined && (typeof name !== 'string' || name.trim().length < 1 || name.trim().length > 64)) throw AuthErrors.passkeyName();
  const answer = requirePasskeyAnswer(presented);
  const state = await deps.ceremonies.finishRegistration(caller.sid);
  if (!state || state.accountId !== caller.sub || state.kind !== caller.kind || !startedUnderCurrentCredentials(account, state.credentialEpoch)) throw AuthErrors.passkeyRejected();
  const credential = await deps.passkeys.verifyRegistration(relyingPartyFor(deps, rp, answer), answer, state.challenge);
  if (!credential) throw AuthErrors.passkeyRejected();
  const before = await deps.factors.list(caller.kind, caller.sub);
  const stored = { id: credential.id, method: 'passkey' as const, name: typeof name === 'string' ? name.trim() : 'Passkey', confirmed: true, counter: credential.counter, details: { publicKey: credential.publicKey, transports: credential.transports } };
  if ((await deps.factors.add(caller.kind, caller.sub, stored)) === 'exists') throw AuthErrors.passkeyExists();
  const recoveryCodes = deps.factorMethods.hasOwnFactor(before) ? undefined : await issueRecoveryCodes(deps, caller.kind, caller.sub);
  await wayInAdded(deps, caller.kind, account, 'passkey_added', `passkey "${stored.name}"`, ctx);
  return { passkey: { id: stored.id, name: stored.name, createdAt: new Date().toISOString() }, ...(recoveryCodes ? { recoveryCodes } : {}) };
}
