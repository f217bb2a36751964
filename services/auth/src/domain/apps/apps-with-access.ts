// "Apps with access", as a person sees them in /account: each app that holds a session of theirs
// (signed in through this service as an OpenID provider) or that they allowed on a consent page, and
// taking an app's access back: its sessions end (and it is told, when it asked), and what they allowed
// it is forgotten, so the next sign-in to it asks again.
import type { AccessClaims } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { noteActivity } from '../shared/activity';
import { announceEnded } from '../shared/sessions';
import type { Needs, RequestContext } from './ports';

export interface AppAccess {
  id: string;
  name: string;
  /** Its live sessions of the person's. */
  sessions: number;
  /** When one of them was last used; null with none. */
  lastUsedAt: string | null;
  /** What the person allowed it on a consent page (an app of another party), and when; null when nothing was asked. */
  allowed: { scopes: string[]; at: string } | null;
}

/** The apps with access to the caller's account, the most recently used first. */
export async function appsWithAccess(deps: Needs<'sessions' | 'appConsents'>, caller: AccessClaims): Promise<AppAccess[]> {
  const [sessions, consents] = await Promise.all([deps.sessions.list(caller.kind, caller.sub), deps.appConsents.list(caller.kind, caller.sub)]);
  const apps = new Map<string, AppAccess>();
  const entry = (id: string, name: string) => apps.get(id) ?? apps.set(id, { id, name, sessions: 0, lastUsedAt: null, allowed: null }).get(id)!;
  for (const session of sessions) {
    if (!session.app) continue;
    const app = entry(session.app.id, session.app.name);
    app.sessions++;
    const used = session.lastUsedAt.toISOString();
    if (!app.lastUsedAt || used > app.lastUsedAt) app.lastUsedAt = used;
  }
  for (const consent of consents) entry(consent.appId, consent.appName).allowed = { scopes: consent.scopes, at: consent.at.toISOString() };
  return [...apps.values()].sort((a, b) => (b.lastUsedAt ?? b.allowed?.at ?? '').localeCompare(a.lastUsedAt ?? a.allowed?.at ?? ''));
}

/** Takes an app's access to the caller's account back: its sessions end, and its consent is forgotten. */
export async function revokeAppAccess(
  deps: Needs<'sessions' | 'appConsents' | 'appLogouts' | 'outbox' | 'activity' | 'logger'>,
  caller: AccessClaims,
  appId: string,
  ctx: RequestContext,
): Promise<void> {
  const [sessions, consent] = await Promise.all([deps.sessions.list(caller.kind, caller.sub), deps.appConsents.find(caller.kind, caller.sub, appId)]);
  const held = sessions.filter((s) => s.app?.id === appId);
  const name = held[0]?.app?.name ?? consent?.appName;
  if (name === undefined) throw AuthErrors.appNotFound();
  const ended: string[] = [];
  for (const { id } of held) if (await deps.sessions.revokeSession(caller.kind, caller.sub, id)) ended.push(id);
  await deps.appConsents.forget(caller.kind, caller.sub, appId);
  await noteActivity(deps, ctx, { kind: caller.kind, accountId: caller.sub, type: 'app_access_revoked', details: [name] });
  await announceEnded(deps, caller.kind, caller.sub, ended, ctx);
}
