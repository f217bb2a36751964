// What a signed-in user reads and manages of their own: the profile (the name), the avatar, the sessions.
// A user session only, and one still alive (a logged-out user's access token reads nothing).
import type { AccessClaims } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { isSessionId, toAccountRecord, type AccountRecord } from '../shared/account';
import { readAvatar, removeAvatar, replaceAvatar, type AvatarContent } from './avatar';
import { noteActivity } from '../shared/activity';
import { asBody, requireName } from '../shared/validation';
import { listOwnFactors, type FactorList } from '../factors';
import { callerAccount } from '../shared/access';
import type { DesktopExport, Needs, RequestContext, SessionInfo } from './ports';
import { announceEnded } from '../shared/sessions';
import { requireLanguage } from '../shared/language';

/** The owner's view of their account, from the replica's exact copy when it has one (AccountProfiles). */
export async function ownProfile(deps: Needs<'profiles'>, user: AccessClaims): Promise<AccountRecord> {
  const account = await deps.profiles.profileOf('user', user.sub);
  if (!account) throw AuthErrors.sessionRevoked();
  return toAccountRecord('user', account);
}

/**
 * The owner changes their name, the language their pages and mails speak, or both. Only these: the
 * address is proven by a mailed link and the password asks for the current one, each on its own
 * route, so a body naming them is refused.
 */
export async function updateOwnProfile(deps: Needs<'accounts' | 'activity' | 'logger'>, user: AccessClaims, raw: unknown, ctx: RequestContext): Promise<AccountRecord> {
  const body = asBody(raw);
  if (Object.keys(body).some((field) => field !== 'name' && field !== 'language')) throw AuthErrors.profileOnlyName();
  if (body.name === undefined && body.language === undefined) throw AuthErrors.profileNameMissing();
  const changes = {
    ...(body.name !== undefined ? { name: requireName(body.name) } : {}),
    ...(body.language !== undefined ? { language: requireLanguage(body.language) } : {}),
  };
  const updated = await deps.accounts.user.update(user.sub, changes);
  if (!updated || updated === 'email_taken') throw AuthErrors.userNotFound();
  await noteActivity(deps, ctx, { kind: 'user', accountId: updated.id, type: 'profile_updated', details: Object.keys(changes) });
  return toAccountRecord('user', updated);
}

export function replaceOwnAvatar(deps: Needs<'accounts' | 'avatars' | 'activity' | 'logger'>, user: AccessClaims, file: { buffer: Buffer } | undefined, ctx: RequestContext): Promise<AccountRecord> {
  return replaceAvatar(deps, user.sub, file, ctx);
}

export function removeOwnAvatar(deps: Needs<'accounts' | 'avatars' | 'activity' | 'logger'>, user: AccessClaims, ctx: RequestContext): Promise<AccountRecord> {
  return removeAvatar(deps, user.sub, ctx);
}

export function ownAvatar(deps: Needs<'accounts' | 'avatars'>, user: AccessClaims): Promise<AvatarContent> {
  return readAvatar(deps, user.sub);
}

export interface SessionRecord {
  id: string;
  current: boolean;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  /** The address the session was opened from, and its browser or app (User-Agent); null when not kept. */
  ip: string | null;
  userAgent: string | null;
  /** The app it signed in to (through this service as an OpenID provider), else null. */
  app: { id: string; name: string } | null;
}

export async function ownSessions(deps: Needs<'sessions'>, user: AccessClaims): Promise<SessionRecord[]> {
  return (await deps.sessions.list('user', user.sub)).map((s) => toSessionRecord(s, user.sid));
}

/** A session as the API answers it; `current` when it is the asking session's (`currentSid`). */
export function toSessionRecord(s: SessionInfo, currentSid?: string): SessionRecord {
  return {
    id: s.id,
    current: s.id === currentSid,
    createdAt: s.createdAt.toISOString(),
    lastUsedAt: s.lastUsedAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    ip: s.ip ?? null,
    userAgent: s.userAgent ?? null,
    app: s.app ?? null,
  };
}

/** Signs one of the user's own sessions out (the current one too: the client then logs in again). */
export async function signOutSession(deps: Needs<'appLogouts' | 'sessions' | 'outbox' | 'activity' | 'logger'>, user: AccessClaims, sessionId: string): Promise<void> {
  if (!isSessionId(sessionId) || !(await deps.sessions.revokeSession('user', user.sub, sessionId))) throw AuthErrors.sessionNotFound();
  await announceEnded(deps, 'user', user.sub, [sessionId]);
}

/** Signs out every session of the user but the one asking; answers how many. */
export async function signOutOthers(deps: Needs<'appLogouts' | 'sessions' | 'outbox' | 'activity' | 'logger'>, user: AccessClaims): Promise<number> {
  const ended = await deps.sessions.revokeOthers('user', user.sub, user.sid);
  await announceEnded(deps, 'user', user.sub, ended);
  return ended.length;
}

export interface OwnData {
  exportedAt: string;
  profile: AccountRecord;
  sessions: SessionRecord[];
  factors: FactorList;
  /** The identity providers the account signs in with. */
  identities: Array<{ provider: string; email: string | null; linkedAt: string }>;
  desktop: DesktopExport;
}

/** Everything the service holds of the signed-in user, as JSON: never a hash, a secret or a token. */
export async function exportOwnData(
  deps: Needs<'accounts' | 'sessions' | 'factors' | 'identities' | 'policy' | 'desktop'>,
  user: AccessClaims,
  authorization: string,
  ctx: RequestContext,
): Promise<OwnData> {
  const [profile, sessions, factors, linked, desktop] = await Promise.all([
    // From the store, not a copy: an export is rare and must be whole.
    callerAccount(deps, { kind: 'user', sub: user.sub }).then((account) => toAccountRecord('user', account)),
    ownSessions(deps, user),
    listOwnFactors(deps, user),
    deps.identities.listFor('user', user.sub),
    deps.desktop.exportOf(authorization, ctx.requestId),
  ]);
  const identities = linked.map((i) => ({ provider: i.provider, email: i.email ?? null, linkedAt: i.linkedAt.toISOString() }));
  return { exportedAt: new Date().toISOString(), profile, sessions, factors, identities, desktop };
}
