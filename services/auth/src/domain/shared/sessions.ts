// Opening, refreshing and closing sessions: an access token plus a rotating refresh token.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import type { Account } from './account';
import type { Needs, RequestContext } from './ports';
import { assertStillAwaited } from './request-deadline';
import { noteActivity } from './activity';

export interface OpenedSession {
  accessToken: string;
  refreshToken: string;
}

/**
 * Opens a session for an account as it was checked; refused (as the credentials it was checked with)
 * when a reset, a password set or a disable was recorded meanwhile.
 */
export async function openSession(deps: Needs<'appLogouts' | 'sessions' | 'tokens' | 'ceremonies' | 'outbox' | 'activity' | 'logger'>, kind: AccountKind, account: Account, ctx: RequestContext): Promise<OpenedSession> {
  assertStillAwaited(ctx);
  const opened = await deps.sessions.create({ kind, accountId: account.id, role: account.role, credentialEpoch: account.credentialEpoch, ip: ctx.ip, userAgent: ctx.userAgent });
  if (opened === 'superseded') throw AuthErrors.invalidCredentials();
  const { token, sessionId } = opened;
  // The login just proved the account's factors: for a few minutes the session may change them.
  await deps.ceremonies.markProof(sessionId, account.credentialEpoch);
  // Over the cap per account, the oldest sessions ended to make room.
  await announceEnded(deps, kind, account.id, opened.evicted, ctx);
  const accessToken = deps.tokens.sign({ sub: account.id, kind, role: account.role, sid: sessionId }, opened.endsAt);
  return { accessToken, refreshToken: token };
}

export async function refreshSession(
  deps: Needs<'appLogouts' | 'sessions' | 'tokens' | 'audit' | 'metrics' | 'outbox' | 'activity' | 'logger'>,
  kind: AccountKind,
  presented: string | undefined,
  ctx: RequestContext,
): Promise<OpenedSession> {
  if (!presented) {
    deps.metrics.refresh(kind, 'missing');
    throw ctx.fromBrowserPage ? AuthErrors.refreshMissingFromBrowser() : AuthErrors.refreshMissing();
  }
  const result = await deps.sessions.rotate(kind, presented);
  deps.metrics.refresh(kind, result.outcome === 'late_retry' ? 'grace' : result.outcome === 'rotated' || result.outcome === 'grace' || result.outcome === 'reused' ? result.outcome : 'invalid');
  if (result.outcome === 'reused') {
    deps.audit.warn(
      { event: 'refresh_token_reuse', kind, account_id: result.owner.accountId, session_id: result.sessionId, ip: ctx.ip },
      'Refresh token reuse detected: session revoked',
    );
    await announceEnded(deps, kind, result.owner.accountId, [result.sessionId], ctx);
    throw AuthErrors.refreshInvalid();
  }
  if (result.outcome === 'late_retry') {
    deps.audit.info({ event: 'refresh_retry_after_grace', kind, account_id: result.owner.accountId, session_id: result.sessionId, ip: ctx.ip }, 'Refresh retried after the grace window; its successor was never used: answered again');
  }
  if (result.outcome !== 'rotated' && result.outcome !== 'grace' && result.outcome !== 'late_retry') throw AuthErrors.refreshInvalid();
  const { owner, sessionId } = result;
  const accessToken = deps.tokens.sign({ sub: owner.accountId, kind, role: owner.role, sid: sessionId }, result.endsAt);
  return { accessToken, refreshToken: result.token };
}

/**
 * Ends every session of an account whose credentials or factors just changed (its epoch already
 * moved on in the store of accounts), its pending second step, and the trust of every browser that
 * skipped that step: a reset of the factors must not leave a browser that skips the new ones.
 */
export async function endEverySession(deps: Needs<'appLogouts' | 'sessions' | 'flows' | 'trustedBrowsers' | 'outbox' | 'activity' | 'logger'>, kind: AccountKind, account: Account, ctx?: RequestContext): Promise<void> {
  await deps.sessions.revokeAll(kind, account.id, account.credentialEpoch);
  await deps.flows.cancelFor(kind, account.id);
  await deps.trustedBrowsers.removeAll(kind, account.id);
  await announceEnded(deps, kind, account.id, 'all', ctx);
}

/** Idempotent: a missing, unknown or foreign token still logs out (the gateway clears the cookie). */
export async function closeSession(deps: Needs<'appLogouts' | 'sessions' | 'outbox' | 'activity' | 'logger'>, kind: AccountKind, presented: string | undefined, ctx?: RequestContext): Promise<void> {
  if (!presented) return;
  const ended = await deps.sessions.revoke(kind, presented);
  if (ended) await announceEnded(deps, kind, ended.accountId, [ended.sessionId], ctx);
}

/**
 * The apps that hold any of the ended sessions (signed in through this service) are told, admins'
 * apps too; a failure is logged and does not undo the ending. Every ending passes here: through
 * announceEnded, or an account's deletion (whose own event tells the other services).
 */
export async function tellApps(deps: Needs<'appLogouts' | 'logger'>, kind: AccountKind, accountId: string, ended: string[] | 'all'): Promise<void> {
  await deps.appLogouts.ended(kind, accountId, ended).catch((err) => deps.logger.error({ reason: (err as Error).message, account_id: accountId }, 'Could not tell the apps of ended sessions'));
}

/**
 * Tells the other services, and the apps that hold them, that sessions ended, any way they did (the notifier drops the
 * push tokens they registered). Through the outbox, so a broker outage delays it and loses nothing;
 * a failure to record it is logged and does not undo the ending. Admins register no devices.
 */
export async function announceEnded(deps: Needs<'outbox' | 'activity' | 'appLogouts' | 'logger'>, kind: AccountKind, accountId: string, ended: string[] | 'all', ctx?: RequestContext): Promise<void> {
  if (ended.length === 0) return;
  await noteActivity(deps, ctx, { kind, accountId, type: 'sessions_ended', details: [ended === 'all' ? 'every session' : ended.length === 1 ? '1 session' : `${ended.length} sessions`] });
  await tellApps(deps, kind, accountId, ended);
  if (kind !== 'user') return;
  await deps.outbox
    .add('account.sessions.ended', { kind, accountId, ...(ended === 'all' ? { all: true as const } : { sessionIds: ended }), requestId: ctx?.requestId })
    .catch((err) => deps.logger.error({ reason: (err as Error).message, account_id: accountId }, 'Could not record the end of sessions'));
}
