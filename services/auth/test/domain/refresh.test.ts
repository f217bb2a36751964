// Refresh's and logout's rules on in-memory ports: what the use case makes of each answer the session store gives
// (a rotation, the grace window's same successor, a late retry, a reuse, anything else), what it
// counts and logs, and that a reuse ends the session and tells whoever holds it. How the store tells
// those answers apart (hashes, the grace window, late retries, lifetimes) is the Redis store's, held
// by services/auth/test/redis-sessions.state.test.ts; the cookie's attributes and clearing are the
// gateway's, held by the end-to-end file test/e2e/refresh.security.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../src/errors';
import { closeSession, openSession, refreshSession } from '../../src/domain/shared/sessions';
import type { RotateResult } from '../../src/domain/ports';
import { MemorySessions, memorySignIn, requestOf } from '../fakes';

type Logged = { level: 'warn' | 'info'; fields: Record<string, unknown>; message: string };

async function setUp() {
  const setup = await memorySignIn();
  const sessions = new MemorySessions();
  const counted: Array<[AccountKind, string]> = [];
  const audited: Logged[] = [];
  const deps = Object.assign(setup.deps, {
    sessions,
    metrics: { ...setup.deps.metrics, refresh: (kind: AccountKind, outcome: string) => void counted.push([kind, outcome]) },
    audit: {
      warn: (fields: Record<string, unknown>, message: string) => void audited.push({ level: 'warn', fields, message }),
      info: (fields: Record<string, unknown>, message: string) => void audited.push({ level: 'info', fields, message }),
    } as unknown as typeof setup.deps.audit,
  });
  const user = await setup.make('user', 'grace@example.com');
  const account = (await deps.accounts.user.findById(user.id))!;
  const opened = await openSession(deps, 'user', account, requestOf());
  return { deps, sessions, counted, audited, user, opened };
}

const owner = { kind: 'user' as const, accountId: 'acct-1', role: 'user' };
const successor = { token: 'sid-1.next', sessionId: 'sid-1', owner, endsAt: Date.now() + 60_000 };

describe('a refresh', () => {
  it('rotates the token and answers an access token for the session’s owner, once: the next refresh takes only the new token', async () => {
    const { deps, opened, user, counted, audited } = await setUp();
    const next = await refreshSession(deps, 'user', opened.refreshToken, requestOf());
    expect(next.refreshToken).not.toBe(opened.refreshToken);
    expect(next.accessToken).toBe(`access-for-${user.id}`);
    const again = await refreshSession(deps, 'user', next.refreshToken, requestOf());
    expect(again.refreshToken).not.toBe(next.refreshToken);
    expect(counted).toEqual([
      ['user', 'rotated'],
      ['user', 'rotated'],
    ]);
    expect(audited).toEqual([]);
  });

  it('ends the session when a token it replaced comes back, logs the reuse, and tells the notifier and the apps', async () => {
    const { deps, sessions, opened, user, counted, audited } = await setUp();
    const next = await refreshSession(deps, 'user', opened.refreshToken, requestOf());
    await expect(refreshSession(deps, 'user', opened.refreshToken, { ...requestOf(), ip: '203.0.113.66' })).rejects.toEqual(AuthErrors.refreshInvalid());
    // The thief's token and the owner's new one both end with the session.
    await expect(refreshSession(deps, 'user', next.refreshToken, requestOf())).rejects.toEqual(AuthErrors.refreshInvalid());
    expect(sessions.live.size).toBe(0);
    expect(counted.map(([, outcome]) => outcome)).toEqual(['rotated', 'reused', 'invalid']);
    expect(audited).toEqual([
      { level: 'warn', fields: { event: 'refresh_token_reuse', kind: 'user', account_id: user.id, session_id: expect.any(String), ip: '203.0.113.66' }, message: 'Refresh token reuse detected: session revoked' },
    ]);
    expect(deps.outbox.events).toContainEqual({ type: 'account.sessions.ended', input: expect.objectContaining({ kind: 'user', accountId: user.id, sessionIds: [audited[0].fields.session_id] }) });
    expect(deps.activity.entries).toContainEqual(expect.objectContaining({ kind: 'user', accountId: user.id, type: 'sessions_ended', details: ['1 session'] }));
  });

  it('refuses a token of the other kind without ending the session', async () => {
    const { deps, sessions, opened, counted } = await setUp();
    await expect(refreshSession(deps, 'admin', opened.refreshToken, requestOf())).rejects.toEqual(AuthErrors.refreshInvalid());
    expect(sessions.live.size).toBe(1);
    expect(counted).toEqual([['admin', 'invalid']]);
    await expect(refreshSession(deps, 'user', opened.refreshToken, requestOf())).resolves.toMatchObject({ accessToken: expect.any(String) });
  });

  it('answers a missing cookie as missing, naming the likely cause only to a browser page, and asks the store nothing', async () => {
    const { deps, counted } = await setUp();
    const rotate = jest.spyOn(deps.sessions, 'rotate');
    for (const presented of [undefined, '']) {
      await expect(refreshSession(deps, 'user', presented, requestOf())).rejects.toEqual(AuthErrors.refreshMissing());
      await expect(refreshSession(deps, 'user', presented, { ...requestOf(), fromBrowserPage: true })).rejects.toEqual(AuthErrors.refreshMissingFromBrowser());
    }
    expect(rotate).not.toHaveBeenCalled();
    expect(counted.map(([, outcome]) => outcome)).toEqual(['missing', 'missing', 'missing', 'missing']);
  });

  // Each answer of the store, as the use case takes it: answered with the successor, or refused.
  it.each<[RotateResult['outcome'], 'answered' | 'refused', string, RotateResult]>([
    ['rotated', 'answered', 'rotated', { outcome: 'rotated', ...successor }],
    ['grace', 'answered', 'grace', { outcome: 'grace', ...successor }],
    ['late_retry', 'answered', 'grace', { outcome: 'late_retry', ...successor }],
    ['reused', 'refused', 'reused', { outcome: 'reused', sessionId: 'sid-1', owner }],
    ['missing', 'refused', 'invalid', { outcome: 'missing' }],
    ['wrong_kind', 'refused', 'invalid', { outcome: 'wrong_kind' }],
    ['expired', 'refused', 'invalid', { outcome: 'expired' }],
    ['invalid', 'refused', 'invalid', { outcome: 'invalid' }],
    ['superseded', 'refused', 'invalid', { outcome: 'superseded' }],
  ])('takes the store’s %s as %s, counted as %s', async (_name, taken, outcome, result) => {
    const { deps, counted } = await setUp();
    deps.sessions.rotate = async () => result;
    const refresh = refreshSession(deps, 'user', 'sid-1.presented', requestOf());
    if (taken === 'answered') await expect(refresh).resolves.toEqual({ accessToken: 'access-for-acct-1', refreshToken: 'sid-1.next' });
    else await expect(refresh).rejects.toEqual(AuthErrors.refreshInvalid());
    expect(counted).toEqual([['user', outcome]]);
  });

  it('logs a late retry (the answer to a rotation lost, retried after the grace window) and answers it again', async () => {
    const { deps, audited } = await setUp();
    deps.sessions.rotate = async () => ({ outcome: 'late_retry', ...successor });
    await refreshSession(deps, 'user', 'sid-1.presented', { ...requestOf(), ip: '198.51.100.4' });
    expect(audited).toEqual([{ level: 'info', fields: { event: 'refresh_retry_after_grace', kind: 'user', account_id: 'acct-1', session_id: 'sid-1', ip: '198.51.100.4' }, message: expect.stringContaining('answered again') }]);
  });
});

describe('a logout', () => {
  it('ends the session of the token presented and tells the notifier; the token refreshes nothing after', async () => {
    const { deps, sessions, opened, user } = await setUp();
    await closeSession(deps, 'user', opened.refreshToken, requestOf());
    expect(sessions.live.size).toBe(0);
    expect(deps.outbox.events).toContainEqual({ type: 'account.sessions.ended', input: expect.objectContaining({ kind: 'user', accountId: user.id, sessionIds: [expect.any(String)] }) });
    await expect(refreshSession(deps, 'user', opened.refreshToken, requestOf())).rejects.toEqual(AuthErrors.refreshInvalid());
  });

  it('answers alike, ending nothing, for no token, one of the other kind, one already rotated out, or one made up', async () => {
    const { deps, sessions, opened } = await setUp();
    const next = await refreshSession(deps, 'user', opened.refreshToken, requestOf());
    for (const [kind, presented] of [['user', undefined], ['user', ''], ['admin', next.refreshToken], ['user', opened.refreshToken], ['user', 'sid-000000000000000099.0']] as const) {
      await expect(closeSession(deps, kind, presented, requestOf())).resolves.toBeUndefined();
    }
    expect(sessions.live.size).toBe(1);
    expect(deps.outbox.events.filter((e) => e.type === 'account.sessions.ended')).toEqual([]);
  });
});
