// Passkeys (WebAuthn, the library behind the PasskeyCeremonies port): registered behind a recent
// proof, used as the second step or in place of the password (sign-in/passkey-sign-in.ts), removed
// unless it is the account's last way in.
import { randomBytes } from 'node:crypto';
import type { AccessClaims, AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { startedUnderCurrentCredentials } from '../shared/credential-epoch';
import { enforceLimit } from '../shared/limits';
import type { Needs, PasskeyOptions, RequestContext } from './ports';
import { wayInAdded } from '../shared/security-notices';
import { asBody, flowTokenOf, requirePasskeyAnswer, type PasskeyAnswer } from '../shared/validation';
import { removeWayIn } from '../shared/ways-in';
import { afterRemoval, hasOwnFactor, relyingPartyFor, requireRecentProof, requireWebauthn, type OwnNeeds } from './common';
import type { SecondStepMethod } from './method';
import { issueRecoveryCodes } from './recovery-codes';

export const passkey: SecondStepMethod<'passkey'> = {
  id: 'passkey',
  answers: 'passkey',
  description: 'Passkey',
  listed: (set) =>
    set.passkeys.map((p) => ({
      id: p.id,
      method: 'passkey' as const,
      label: p.name,
      createdAt: p.createdAt.toISOString(),
      lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
      confirmed: true,
      role: 'way-in' as const,
      ...(p.suspended ? { suspended: true as const } : {}),
    })),
  offered: (set) => set.passkeys.length > 0,
  /** The account's passkey answering the WebAuthn challenge handed out for this step. */
  async prove(deps, challenge, proof) {
    if (!challenge.webauthnChallenge) return false;
    // A second step after the password: a suspended passkey answers it, and is kept from then on.
    const owner = await verifyAssertion(deps, challenge.kind, proof.response, challenge.webauthnChallenge, 'second_step');
    return owner?.accountId === challenge.accountId;
  },
};

/** Options for answering a pending second step with a passkey: the account's own passkeys only. */
export async function secondStepPasskeyOptions(deps: Needs<'flows' | 'factors' | 'policy' | 'passkeys' | 'rateLimits' | 'metrics'>, raw: unknown, ctx: RequestContext): Promise<PasskeyOptions> {
  const rp = requireWebauthn(deps);
  await enforceLimit(deps, 'otpIp', ctx.budget);
  const challengeToken = flowTokenOf(asBody(raw), 'challenge_token');
  if (!challengeToken) throw AuthErrors.challengeTokenMissing();
  const challenge = randomBytes(32).toString('base64url');
  const owner = await deps.flows.attachWebauthn(challengeToken, challenge);
  if (!owner) throw AuthErrors.invalidChallenge();
  const { passkeys } = await deps.factors.of(owner.kind, owner.accountId);
  return deps.passkeys.authenticationOptions(rp, { challenge, allow: passkeys });
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
  const stored = await deps.factors.findPasskey(answer.id);
  if (!stored || stored.kind !== kind || (use === 'alone' && stored.suspended)) return undefined;
  const verified = await deps.passkeys.verifyAuthentication(rp, answer, challenge, stored);
  if (!verified) return undefined;
  await deps.factors.usePasskey(stored.id, verified.counter, { keep: use === 'second_step' && stored.suspended === true });
  return { accountId: stored.accountId };
}

/** Registration options for a new passkey of the caller (their own passkeys excluded). */
export async function passkeyRegistrationOptions(deps: OwnNeeds & Needs<'passkeys'>, caller: AccessClaims): Promise<PasskeyOptions> {
  const rp = requireWebauthn(deps);
  const account = await requireRecentProof(deps, caller);
  const { passkeys } = await deps.factors.of(caller.kind, caller.sub);
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
  const set = await deps.factors.of(caller.kind, caller.sub);
  const stored = { ...credential, name: typeof name === 'string' ? name.trim() : 'Passkey' };
  if ((await deps.factors.addPasskey(caller.kind, caller.sub, stored)) === 'exists') throw AuthErrors.passkeyExists();
  const recoveryCodes = hasOwnFactor(set) ? undefined : await issueRecoveryCodes(deps, caller.kind, caller.sub);
  await wayInAdded(deps, caller.kind, account, 'passkey_added', `passkey "${stored.name}"`, ctx);
  return { passkey: { id: stored.id, name: stored.name, createdAt: new Date().toISOString() }, ...(recoveryCodes ? { recoveryCodes } : {}) };
}

export async function removePasskey(deps: OwnNeeds & Needs<'locks' | 'identities'>, caller: AccessClaims, passkeyId: string, ctx: RequestContext): Promise<number> {
  const account = await requireRecentProof(deps, caller);
  if (!/^[A-Za-z0-9_-]{1,1366}$/.test(passkeyId)) throw AuthErrors.factorNotFound();
  // A passwordless account's last passkey is its last way in, unless an identity is linked.
  const removed = await removeWayIn(deps, caller.kind, account, { type: 'passkey', id: passkeyId }, () => deps.factors.removePasskey(caller.kind, caller.sub, passkeyId));
  if (!removed) throw AuthErrors.factorNotFound();
  return afterRemoval(deps, caller, account, 'passkey_removed', ctx);
}
