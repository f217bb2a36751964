// Signing in with a passkey in place of the password: both factors at once, for either kind (when
// passkeys are on). The options open a passkey flow (flow.ts) holding the WebAuthn challenge; the
// answer takes it back once, and the passkey that verifies against it names the account.
import { kindLabel, type AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import type { Account } from '../shared/account';
import { enforceLimit } from '../shared/limits';
import type { Needs, PasskeyOptions, RequestContext } from './ports';
import { asBody, flowTokenOf, requirePasskeyAnswer } from '../shared/validation';
import { requireWebauthn, verifyAssertion } from '../factors';
import { passkeyFlow } from './flow';

/** Options for signing in with a passkey (any of the kind's: the browser offers the ones it holds), and the token that takes the answer. */
export async function passkeySignInOptions(
  deps: Needs<'flows' | 'policy' | 'passkeys' | 'rateLimits' | 'metrics'>,
  kind: AccountKind,
  ctx: RequestContext,
): Promise<{ options: PasskeyOptions; passkeyToken: string }> {
  const rp = requireWebauthn(deps);
  // A sign-in page asks on every view (for the browser's passkey suggestions): the sign-in is counted at the answer, not here.
  await enforceLimit(deps, 'passkeyOptionsIp', ctx.budget);
  const options = await deps.passkeys.authenticationOptions(rp, {});
  const { token: passkeyToken } = await deps.flows.open(passkeyFlow(kind, options.challenge));
  return { options, passkeyToken };
}

/** The account whose passkey answered the sign-in ceremony of `passkey_token`: the passkey is both factors. */
export async function passkeySignInAccount(
  deps: Needs<'flows' | 'factors' | 'accounts' | 'policy' | 'passkeys' | 'rateLimits' | 'metrics' | 'audit' | 'logger'>,
  kind: AccountKind,
  raw: unknown,
  ctx: RequestContext,
): Promise<Account> {
  requireWebauthn(deps);
  await enforceLimit(deps, 'loginIp', ctx.budget);
  const body = asBody(raw);
  const token = flowTokenOf(body, 'passkey_token');
  const presented = body.passkey;
  if (!token || presented === undefined || presented === null) throw AuthErrors.passkeySignInMissing();
  const answer = requirePasskeyAnswer(presented);
  const taken = await deps.flows.take('passkey', { token });
  const flow = taken.outcome === 'taken' && taken.flow.kind === kind ? taken.flow : undefined;
  const owner = flow?.webauthnChallenge ? await verifyAssertion(deps, kind, answer, flow.webauthnChallenge, 'alone') : undefined;
  const account = owner ? await deps.accounts[kind].findById(owner.accountId) : null;
  if (!account) {
    deps.audit.warn({ ip: ctx.ip, reason: flow ? 'passkey_not_verified' : 'ceremony_unknown' }, `${kindLabel(kind)} passkey login failed`);
    throw AuthErrors.passkeyRejected();
  }
  return account;
}
