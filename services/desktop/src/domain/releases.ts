// The version check: the newest published release of a known platform, as the client reads it.
import { DesktopErrors } from '../errors';
import { isPlatform } from './platforms';
import type { LatestReleases, Release } from './ports';

export type ReleaseRecord = Omit<Release, 'publishedAt' | 'withdrawnAt'> & { publishedAt: string };

export const toReleaseRecord = (r: Release): ReleaseRecord => ({
  platform: r.platform,
  version: r.version,
  url: r.url,
  sha256: r.sha256,
  notes: r.notes,
  mandatory: r.mandatory,
  publishedAt: r.publishedAt.toISOString(),
});

/** The newest release for `platform` (a query value); 400 when it is missing or unknown, 404 when none is published. */
export async function latestRelease(deps: { latestReleases: LatestReleases }, platform: unknown): Promise<Release> {
  if (platform === undefined || platform === '') throw DesktopErrors.platformMissing();
  if (!isPlatform(platform)) throw DesktopErrors.platformUnknown();
  const latest = await deps.latestReleases.latest(platform);
  if (!latest) throw DesktopErrors.noRelease();
  return latest;
}
