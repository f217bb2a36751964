// Opening, refreshing and closing sessions: an access token plus a rotating refresh token.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../errors';
import type { Account } from './account';
import type { Needs, RequestContext } from './ports';

export interface OpenedSession {
  accessToken: string;
  refreshToken: string;
}

/**
 * Opens a session for an account as it was checked; refused (as the credentials it was checked with)
 * when a reset, a password set or a disable was recorded meanwhile.
 */
export async function openSession(deps: Needs<'sessions' | 'tokens'>, kind: AccountKind, account: Account): Promise<OpenedSession> {
  const opened = await deps.sessions.create({ kind, accountId: account.id, role: account.role, credentialEpoch: account.credentialEpoch });
  if (opened === 'superseded') throw AuthErrors.invalidCredentials();
  const { token, sessionId } = opened;
  const accessToken = deps.tokens.sign({ sub: account.id, kind, role: account.role, sid: sessionId });
  return { accessToken, refreshToken: token };
}

export async function refreshSession(
  deps: Needs<'sessions' | 'tokens' | 'audit' | 'metrics'>,
  kind: AccountKind,
  presented: string | undefined,
  ctx: RequestContext,
): Promise<OpenedSession> {
  if (!presented) {
    deps.metrics.refresh(kind, 'missing');
    throw AuthErrors.refreshMissing();
  }
  const result = await deps.sessions.rotate(kind, presented);
  deps.metrics.refresh(kind, result.outcome === 'rotated' || result.outcome === 'grace' || result.outcome === 'reused' ? result.outcome : 'invalid');
  if (result.outcome === 'reused') {
    deps.audit.warn(
      { event: 'refresh_token_reuse', kind, account_id: result.owner.accountId, session_id: result.sessionId, ip: ctx.ip },
      'Refresh token reuse detected: session revoked',
    );
    throw AuthErrors.refreshInvalid();
  }
  if (result.outcome !== 'rotated' && result.outcome !== 'grace') throw AuthErrors.refreshInvalid();
  const { owner, sessionId } = result;
  const accessToken = deps.tokens.sign({ sub: owner.accountId, kind, role: owner.role, sid: sessionId });
  return { accessToken, refreshToken: result.token };
}

/**
 * Ends every session of an account whose credentials just changed (its epoch already moved on in
 * the store of accounts), and an admin's pending code challenge with them.
 */
export async function endEverySession(deps: Needs<'sessions' | 'otp'>, kind: AccountKind, account: Account): Promise<void> {
  await deps.sessions.revokeAll(kind, account.id, account.credentialEpoch);
  if (kind === 'admin') await deps.otp.cancelFor(account.id);
}

/** Idempotent: a missing, unknown or foreign token still logs out (the gateway clears the cookie). */
export async function closeSession(deps: Needs<'sessions'>, kind: AccountKind, presented: string | undefined): Promise<void> {
  if (presented) await deps.sessions.revoke(kind, presented);
}
