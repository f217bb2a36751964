// Releases of the desktop app: the version check (the newest published release of a known
// platform, as the client reads it), and what admins do with them (list, publish, withdraw), from
// the console through auth or from the release tool (release-cli.ts), under the same rules.
import semver from 'semver';
import { assertSessionLive, type AccessClaims, type DesktopReleaseRecord, type RevocationCheck } from '@acct/shared';
import { DesktopErrors } from '../errors';
import { PLATFORMS, isPlatform, type Platform } from './platforms';
import type { LatestReleases, NewRelease, Release, ReleaseStore } from './ports';

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

/** A release as admins read it: withdrawn ones too. */
export type ManagedReleaseRecord = DesktopReleaseRecord;

export const toManagedReleaseRecord = (r: Release): ManagedReleaseRecord => ({ ...toReleaseRecord(r), withdrawnAt: r.withdrawnAt?.toISOString() ?? null });

const NOTES_MAX = 2_000;

/**
 * A release to publish, checked: platform, a semantic version, an http(s) address of the download,
 * its SHA-256 and notes. What is wrong is named by field (`problem`), in words both the console's
 * answer and the release tool's usage line read.
 */
export function readNewRelease(fields: Record<string, unknown>): { release: NewRelease } | { field: string; problem: string } {
  const { platform, version, url, sha256, notes = '', mandatory = false } = fields;
  if (!isPlatform(platform)) return { field: 'platform', problem: `must be one of ${PLATFORMS.join(', ')}` };
  const valid = typeof version === 'string' ? semver.valid(version) : null;
  if (!valid) return { field: 'version', problem: `must be a semantic version such as 1.4.0 (got '${typeof version === 'string' ? version.slice(0, 40) : ''}')` };
  let address: URL;
  try {
    address = new URL(typeof url === 'string' ? url : '');
  } catch {
    return { field: 'url', problem: 'must be an absolute URL' };
  }
  if (address.protocol !== 'https:' && address.protocol !== 'http:') return { field: 'url', problem: 'must be http(s)' };
  if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(sha256)) return { field: 'sha256', problem: 'must be 64 hexadecimal characters' };
  if (typeof notes !== 'string' || notes.length > NOTES_MAX) return { field: 'notes', problem: `must be text of at most ${NOTES_MAX} characters` };
  if (typeof mandatory !== 'boolean') return { field: 'mandatory', problem: 'must be true or false' };
  return { release: { platform, version: valid, url: address.toString(), sha256: sha256.toLowerCase(), notes, mandatory } };
}

/** An admin's live session (the console's requests reach desktop through auth, with the admin's own token). */
export async function requireAdminSession(revocations: RevocationCheck, claims: AccessClaims | undefined): Promise<AccessClaims> {
  if (!claims) throw DesktopErrors.authRequired();
  if (claims.kind !== 'admin') throw DesktopErrors.adminOnly();
  await assertSessionLive(revocations, claims);
  return claims;
}

type ReleaseDeps = { releases: ReleaseStore; latestReleases: LatestReleases };

export async function listReleases(deps: Pick<ReleaseDeps, 'releases'>, platform: unknown): Promise<ManagedReleaseRecord[]> {
  if (platform !== undefined && platform !== '' && !isPlatform(platform)) throw DesktopErrors.platformUnknown();
  return (await deps.releases.list(platform ? (platform as Platform) : undefined)).map(toManagedReleaseRecord);
}

export async function publishRelease(deps: ReleaseDeps, raw: unknown): Promise<ManagedReleaseRecord> {
  const read = readNewRelease(raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {});
  if ('problem' in read) throw DesktopErrors.releaseInvalid(`${read.field} ${read.problem}`);
  const published = await deps.releases.publish(read.release);
  if (published === 'exists') throw DesktopErrors.releaseExists();
  deps.latestReleases.forget(published.platform);
  return toManagedReleaseRecord(published);
}

export async function withdrawRelease(deps: ReleaseDeps, platform: string, version: string): Promise<void> {
  if (!isPlatform(platform)) throw DesktopErrors.platformUnknown();
  const valid = semver.valid(version);
  if (!valid || !(await deps.releases.withdraw(platform, valid))) throw DesktopErrors.releaseNotFound();
  deps.latestReleases.forget(platform);
}
