// Opening, refreshing and closing sessions: an access token plus a rotating refresh token.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../errors';
import type { AccountDoc } from '../data-access/account-repository';
import type { AuthDomain, RequestContext } from './deps';

export interface OpenedSession {
  accessToken: string;
  refreshToken: string;
}

export async function openSession(domain: AuthDomain, kind: AccountKind, account: AccountDoc): Promise<OpenedSession> {
  const accountId = account._id.toString();
  const { token, sessionId } = await domain.sessions.create({ kind, accountId, role: account.role });
  const accessToken = domain.tokens.sign({ sub: accountId, kind, role: account.role, sid: sessionId });
  return { accessToken, refreshToken: token };
}

export async function refreshSession(domain: AuthDomain, kind: AccountKind, presented: string | undefined, ctx: RequestContext): Promise<OpenedSession> {
  if (!presented) throw AuthErrors.refreshMissing();
  const result = await domain.sessions.rotate(kind, presented);
  if (result.outcome === 'reused') {
    domain.audit.warn(
      { event: 'refresh_token_reuse', kind, account_id: result.owner.accountId, session_id: result.sessionId, ip: ctx.ip, request_id: ctx.requestId },
      'Refresh token reuse detected: session revoked',
    );
    throw AuthErrors.refreshInvalid();
  }
  if (result.outcome !== 'rotated' && result.outcome !== 'grace') throw AuthErrors.refreshInvalid();
  const { owner, sessionId } = result;
  const accessToken = domain.tokens.sign({ sub: owner.accountId, kind, role: owner.role, sid: sessionId });
  return { accessToken, refreshToken: result.token };
}

/** Idempotent: a missing, unknown or foreign token still logs out (the gateway clears the cookie). */
export async function closeSession(domain: AuthDomain, kind: AccountKind, presented: string | undefined): Promise<void> {
  if (presented) await domain.sessions.revoke(kind, presented);
}
