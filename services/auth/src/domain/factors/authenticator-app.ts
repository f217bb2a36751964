// An authenticator app (RFC 6238 codes, the library behind the TotpCodes port): set up from a QR
// code, made live by its first code, each time step accepted once, removed behind a recent proof.
import type { AccessClaims, AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { callerAccount } from '../shared/access';
import { enforceLimit } from '../shared/limits';
import { TOTP_PERIOD_SECONDS, type Needs, type ProofVerdict, type RequestContext } from './ports';
import { wayInAdded } from '../shared/security-notices';
import { asBody, requireCode } from '../shared/validation';
import { afterRemoval, checkCodeWithinBudget, hasOwnFactor, requireRecentProof, type OwnNeeds } from './common';
import type { SecondStepMethod } from './method';
import { issueRecoveryCodes } from './recovery-codes';

export const authenticatorApp: SecondStepMethod<'code'> = {
  id: 'totp',
  answers: 'code',
  description: 'Authenticator app',
  listed: ({ totp }) =>
    totp
      ? [
          {
            id: 'totp',
            method: 'totp',
            label: 'Authenticator app',
            createdAt: totp.createdAt.toISOString(),
            // The time step of the last code it took: when that code was current.
            lastUsedAt: totp.confirmed && totp.lastStep > 0 ? new Date(totp.lastStep * TOTP_PERIOD_SECONDS * 1000).toISOString() : null,
            confirmed: totp.confirmed,
            role: 'way-in',
          },
        ]
      : [],
  offered: (set) => set.totp?.confirmed === true,
  prove: (deps, { kind, accountId }, proof) => useAuthenticatorCode(deps, kind, accountId, proof.code),
};

/** A code of the live authenticator: true once per time step; `used` for a step already used (a replay, or an older step after a newer one), refused but no guess. */
export async function useAuthenticatorCode(deps: Needs<'factors' | 'totp'>, kind: AccountKind, accountId: string, code: string): Promise<ProofVerdict> {
  const { totp } = await deps.factors.of(kind, accountId);
  if (!totp?.confirmed) return false;
  const step = deps.totp.stepOf(totp.secret, code);
  if (step === undefined) return false;
  return (await deps.factors.useTotpStep(kind, accountId, step)) || 'used';
}

/** Starts adding an authenticator app: a fresh secret, its otpauth:// URI and that URI as a QR image. */
export async function startAuthenticator(deps: OwnNeeds & Needs<'totp' | 'qrCodes'>, caller: AccessClaims): Promise<{ secret: string; otpauthUrl: string; qrCode: string }> {
  const account = await requireRecentProof(deps, caller);
  const secret = deps.totp.newSecret();
  if ((await deps.factors.startTotp(caller.kind, caller.sub, secret)) === 'exists') throw AuthErrors.authenticatorExists();
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
  const set = await deps.factors.of(caller.kind, caller.sub);
  if (!set.totp || set.totp.confirmed) throw AuthErrors.noPendingAuthenticator();
  const step = deps.totp.stepOf(set.totp.secret, code);
  await checkCodeWithinBudget(deps, caller.kind, caller.sub, async () => step !== undefined);
  if (!(await deps.factors.confirmTotp(caller.kind, caller.sub, step as number))) throw AuthErrors.noPendingAuthenticator();
  const account = await callerAccount(deps, caller);
  const recoveryCodes = hasOwnFactor(set) ? undefined : await issueRecoveryCodes(deps, caller.kind, caller.sub);
  await wayInAdded(deps, caller.kind, account, 'totp_added', 'an authenticator app', ctx);
  return recoveryCodes ? { recoveryCodes } : {};
}

export async function removeAuthenticator(deps: OwnNeeds, caller: AccessClaims, ctx: RequestContext): Promise<number> {
  const account = await requireRecentProof(deps, caller);
  if (!(await deps.factors.removeTotp(caller.kind, caller.sub))) throw AuthErrors.factorNotFound();
  return afterRemoval(deps, caller, account, 'totp_removed', ctx);
}
