// The desktop releases as the admin console manages them: read, publish, withdraw. Desktop keeps
// them and checks a release (its rules are the release tool's); this side asks the admin's recent
// proof before a change (a published release reaches every desktop client, and clients may download
// it at once: it cannot be undone) and keeps the change in the deployment's activity log.
import { noteActivity } from '../shared/activity';
import { assertAdminProof } from '../shared/access';
import type { DesktopRelease, Needs, RequestContext } from './ports';

export function listDesktopReleases(deps: Needs<'desktop'>, authorization: string, platform: unknown, ctx: RequestContext): Promise<DesktopRelease[]> {
  return deps.desktop.releases(authorization, typeof platform === 'string' && platform !== '' ? platform : undefined, ctx.requestId);
}

export async function publishDesktopRelease(deps: Needs<'desktop' | 'accounts' | 'ceremonies' | 'activity' | 'logger'>, authorization: string, body: unknown, ctx: RequestContext): Promise<DesktopRelease> {
  await assertAdminProof(deps, ctx);
  const release = await deps.desktop.publishRelease(authorization, body, ctx.requestId);
  await noteActivity(deps, ctx, { kind: 'admin', accountId: ctx.actor!.sub, type: 'release_published', details: [`${release.platform} ${release.version}${release.mandatory ? ' (mandatory)' : ''}`] });
  return release;
}

export async function withdrawDesktopRelease(
  deps: Needs<'desktop' | 'accounts' | 'ceremonies' | 'activity' | 'logger'>,
  authorization: string,
  release: { platform: string; version: string },
  ctx: RequestContext,
): Promise<void> {
  await assertAdminProof(deps, ctx);
  await deps.desktop.withdrawRelease(authorization, release.platform, release.version, ctx.requestId);
  await noteActivity(deps, ctx, { kind: 'admin', accountId: ctx.actor!.sub, type: 'release_withdrawn', details: [`${release.platform} ${release.version}`] });
}
