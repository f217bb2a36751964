// What the factor methods share: the recent proof a change needs, the passkey relying party, the account's one budget of wrong codes, and what follows
// a factor's removal.
import type { AccessClaims, AccountKind, SecurityChange } from '@acct/shared';
import { AuthErrors } from '../../errors';
import type { Account } from '../shared/account';
import { callerAccount, hasRecentProof } from '../shared/access';
import type { Needs, ProofVerdict, RelyingParty, RequestContext } from './ports';
import { securityNotice } from '../shared/security-notices';
import { announceEnded } from '../shared/sessions';

/** What an account's own factor changes use. */
export type OwnNeeds = Needs<'accounts' | 'factors' | 'factorMethods' | 'ceremonies' | 'sessions' | 'outbox' | 'appLogouts' | 'activity' | 'logger' | 'policy'>;

/** The caller's account, when the session has a recent proof under its current credentials. */
export async function requireRecentProof(deps: Needs<'ceremonies' | 'accounts'>, caller: AccessClaims): Promise<Account> {
  const account = await callerAccount(deps, caller);
  if (!(await hasRecentProof(deps, caller, account))) throw AuthErrors.stepUpRequired();
  return account;
}

/**
 * The relying party narrowed to the origin of the page that made `answer`, when that page may run a
 * ceremony; refused, the origin is named in the log (for whoever runs the deployment) and in the
 * answer (for whoever built the page).
 */
export function relyingPartyFor(deps: Needs<'passkeys' | 'logger'>, rp: RelyingParty, answer: unknown): RelyingParty {
  const origin = deps.passkeys.originOf(answer);
  // No client data to read: the library refuses the answer as it is.
  if (origin === undefined) return rp;
  if (rp.origins.includes(origin) || (rp.anyLocalhostPort && /^http:\/\/localhost(:\d{1,5})?$/.test(origin))) return { ...rp, origins: [origin] };
  deps.logger.warn({ origin, allowed: rp.origins }, 'Passkey ceremony from a page on an origin WEBAUTHN_ORIGINS does not list: refused');
  throw AuthErrors.passkeyOriginRefused(origin);
}

/** The deployment's passkey relying party; `passkeys_disabled` without one. */
export function requireWebauthn(deps: Needs<'policy'>): RelyingParty {
  const webauthn = deps.policy.mfa.webauthn;
  if (!webauthn) throw AuthErrors.passkeysOff();
  return webauthn;
}

/**
 * A code checked outside a login's challenge (`reauthenticate`, confirming an authenticator), under
 * the account's one budget of wrong codes: a wait after too many, wherever they were sent.
 */
export async function checkCodeWithinBudget(deps: Needs<'codeGuesses'>, kind: AccountKind, accountId: string, check: () => Promise<ProofVerdict>): Promise<void> {
  const wait = await deps.codeGuesses.waitBeforeGuess(kind, accountId);
  if (wait > 0) throw AuthErrors.rateLimited(wait / 1000);
  const verdict = await check();
  if (verdict === true) return deps.codeGuesses.succeeded(kind, accountId);
  if (verdict === false) await deps.codeGuesses.failed(kind, accountId);
  throw AuthErrors.invalidCode();
}

/** After a factor went: the backups (recovery codes) go with the last one they stand in for, the account's other sessions end, the owner is told. */
export async function afterRemoval(deps: OwnNeeds, caller: AccessClaims, account: Account, change: SecurityChange, ctx: RequestContext): Promise<number> {
  const left = await deps.factors.list(caller.kind, caller.sub);
  if (!deps.factorMethods.hasOwnFactor(left)) {
    for (const backup of left.filter((f) => deps.factorMethods.role(f.method) === 'backup')) await deps.factors.remove(caller.kind, caller.sub, backup);
  }
  const ended = await deps.sessions.revokeOthers(caller.kind, caller.sub, caller.sid);
  await announceEnded(deps, caller.kind, caller.sub, ended, ctx);
  await securityNotice(deps, caller.kind, account, change, ctx);
  return ended.length;
}
