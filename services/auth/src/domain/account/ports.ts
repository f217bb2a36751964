// The account's ports: what its owner is shown of it, avatars, the desktop data an export and the
// releases read, and the first admin's claim.
import type { Readable } from 'node:stream';
import type { AccountKind, DesktopReleaseRecord } from '@acct/shared';
import type { Account } from '../shared/account';
import type { SharedDeps } from '../shared/ports';
import type { EmailDeps } from '../email';
import type { FactorDeps } from '../factors';
import type { IdentityDeps } from '../identity';

export type * from '../shared/ports';

export interface Avatars {
  save(userId: string, content: Buffer, contentType: string): Promise<string>;
  open(fileId: string): Readable;
  remove(fileId: string): Promise<void>;
}

export interface DesktopExport {
  devices: Array<{ id: string; platform: string; appVersion: string; lastSyncAt: string | null }>;
  sync: { items: number; cursor: string };
}

/** A desktop release as admins manage it (desktop's own record). */
export type DesktopRelease = DesktopReleaseRecord;

/**
 * The desktop service, asked with the caller's own access token (desktop checks it as it checks any):
 * a user's part of their export, and the releases admins manage. Desktop's refusals (a 4xx) come back
 * as they are; no answer in time is a 503.
 */
export interface DesktopData {
  exportOf(authorization: string, requestId?: string): Promise<DesktopExport>;
  releases(authorization: string, platform: string | undefined, requestId?: string): Promise<DesktopRelease[]>;
  publishRelease(authorization: string, release: unknown, requestId?: string): Promise<DesktopRelease>;
  withdrawRelease(authorization: string, platform: string, version: string, requestId?: string): Promise<void>;
}

export interface FirstAdminClaim {
  /** Claims the one-time right to create the first admin; answers a release for when creation fails. */
  claim(): Promise<(() => Promise<void>) | undefined>;
  /** Whether that right is still there to claim (no admin, and nobody is creating the first): a first-run page offers it. */
  available(): Promise<boolean>;
}

/**
 * What an account's owner is shown of it (`GET /me`): from a copy in the replica's memory while that
 * copy is exact under the feed of account changes (data-access/account-copies.ts), else from the
 * store. Never for a decision: sign-in, access and changes read the store (`Accounts`).
 */
export interface AccountProfiles {
  profileOf(kind: AccountKind, id: string): Promise<Account | null>;
}

export interface AccountDeps {
  profiles: AccountProfiles;
  avatars: Avatars;
  firstAdmin: FirstAdminClaim;
  desktop: DesktopData;
}

/** Every port this folder's use cases may name: shared's, its own and those of the features it calls. */
type Ports = SharedDeps & AccountDeps & EmailDeps & FactorDeps & IdentityDeps;
/** The part of the ports a use case of this folder works with: its signature says which. */
export type Needs<K extends keyof Ports> = Pick<Ports, K>;
