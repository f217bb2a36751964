// An authenticator app (RFC 6238 codes, the library behind the TotpCodes port): set up from a QR
// code, made live by its first code, each time step accepted once (removed as any factor is, removal.ts).
import type { AccessClaims, AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { callerAccount } from '../shared/access';
import { enforceLimit } from '../shared/limits';
import { TOTP_PERIOD_SECONDS, type Factor, type Needs, type ProofVerdict, type RequestContext } from './ports';
import { wayInAdded } from '../shared/security-notices';
import { asBody, requireCode } from '../shared/validation';
import { checkCodeWithinBudget, requireRecentProof, type OwnNeeds } from './common';
import { entryOf, factorsOf, type SecondStepMethod } from './method';
import { issueRecoveryCodes } from './recovery-codes';

/** An account holds one authenticator: the factor's id is the method's name. */
const APP = { method: 'totp', id: 'totp' } as const;

export const authenticatorApp: SecondStepMethod<'code'> = {
  id: 'totp',
  answers: 'code',
  description: 'Authenticator app',
  role: 'way-in',
  removedAs: 'totp_removed',
  listed: (held) =>
    factorsOf(held, 'totp').map((app) => ({
      ...entryOf(app, 'Authenticator app', 'way-in'),
      // The time step of the last code it took: when that code was current.
      lastUsedAt: app.confirmed && app.counter > 0 ? new Date(app.counter * TOTP_PERIOD_SECONDS * 1000).toISOString() : null,
    })),
  offered: (held) => factorsOf(held, 'totp').some((app) => app.confirmed),
  prove: (deps, { kind, accountId }, proof) => useAuthenticatorCode(deps, kind, accountId, proof.code),
};

/** The account's authenticator, live or waiting for its first code; undefined when it has none. */
async function authenticatorOf(deps: Needs<'factors'>, kind: AccountKind, accountId: string): Promise<Factor | undefined> {
  return (await deps.factors.list(kind, accountId)).find((f) => f.method === 'totp');
}

/** A code of the live authenticator: true once per time step; `used` for a step already used (a replay, or an older step after a newer one), refused but no guess. */
export async function useAuthenticatorCode(deps: Needs<'factors' | 'totp'>, kind: AccountKind, accountId: string, code: string): Promise<ProofVerdict> {
  const app = await authenticatorOf(deps, kind, accountId);
  if (!app?.confirmed || app.secret === undefined) return false;
  const step = deps.totp.stepOf(app.secret, code);
  if (step === undefined) return false;
  return (await deps.factors.use(kind, accountId, APP, step, { strictly: true })) || 'used';
}

/** Starts adding an authenticator app: a fresh secret, its otpauth:// URI and that URI as a QR image. */
export async function startAuthenticator(deps: OwnNeeds & Needs<'totp' | 'qrCodes'>, caller: AccessClaims): Promise<{ secret: string; otpauthUrl: string; qrCode: string }> {
  const account = await requireRecentProof(deps, caller);
  const secret = deps.totp.newSecret();
  if ((await deps.factors.add(caller.kind, caller.sub, { ...APP, confirmed: false, secret }, 'unconfirmed')) === 'exists') throw AuthErrors.authenticatorExists();
  const otpauthUrl = deps.totp.uri(secret, deps.policy.mfa.totpIssuer, account.email);
  return { secret, otpauthUrl, qrCode: await deps.qrCodes.dataUrl(otpauthUrl) };
}

/** The first correct code makes the authenticator live; the account's first factor comes with recovery codes. */
export async function confirmAuthenticator(
  deps: OwnNeeds & Needs<'rateLimits' | 'metrics' | 'codeGuesses' | 'totp'>,
  caller: AccessClaims,
  raw: unknown,
  ctx: RequestContext,
): Promise<{ recoveryCodes?: string[] }> {
  await enforceLimit(deps, 'otpIp', ctx.budget);
  const code = requireCode(asBody(raw).code);
  const before = await deps.factors.list(caller.kind, caller.sub);
  const app = before.find((f) => f.method === 'totp');
  if (!app || app.confirmed || app.secret === undefined) throw AuthErrors.noPendingAuthenticator();
  const step = deps.totp.stepOf(app.secret, code);
  await checkCodeWithinBudget(deps, caller.kind, caller.sub, async () => step !== undefined);
  if (!(await deps.factors.confirm(caller.kind, caller.sub, APP, step as number))) throw AuthErrors.noPendingAuthenticator();
  const account = await callerAccount(deps, caller);
  const recoveryCodes = deps.factorMethods.hasOwnFactor(before) ? undefined : await issueRecoveryCodes(deps, caller.kind, caller.sub);
  await wayInAdded(deps, caller.kind, account, 'totp_added', 'an authenticator app', ctx);
  return recoveryCodes ? { recoveryCodes } : {};
}
