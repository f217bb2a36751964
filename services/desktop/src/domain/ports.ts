// What desktop's use cases work with, as interfaces: the repositories in data-access/ implement
// them, the composition root (server.ts) wires them once.
import type { Platform } from './platforms';

/** A published desktop release. */
export interface Release {
  platform: Platform;
  version: string;
  url: string;
  sha256: string;
  notes: string;
  mandatory: boolean;
  publishedAt: Date;
  withdrawnAt: Date | null;
}

/** The newest release per platform (cached for a short time, release-repository.ts). */
export interface LatestReleases {
  latest(platform: Platform): Promise<Release | undefined>;
  /** Reads the platform's newest release again at the next ask (after a publish or a withdrawal here). */
  forget(platform: Platform): void;
}

export type NewRelease = Omit<Release, 'publishedAt' | 'withdrawnAt'>;

/** Every release, published and withdrawn: what admins manage (the console, the release tool). */
export interface ReleaseStore {
  /** Newest first per platform. */
  list(platform?: Platform): Promise<Release[]>;
  /** `exists` when that platform and version were published before (withdrawn or not). */
  publish(release: NewRelease): Promise<Release | 'exists'>;
  /** Whether a published release of that version was withdrawn now. */
  withdraw(platform: Platform, version: string): Promise<boolean>;
}

export interface SyncItem {
  key: string;
  value: unknown;
  updatedAt: string;
}

export interface SyncChange {
  key: string;
  valueJson: string;
  updatedAt: Date;
}

export interface DeviceReport {
  id: string;
  platform: string;
  appVersion: string;
  pushToken?: string;
}

/** The per-user sync state, as sync-repository.ts keeps it. */
export interface SyncStore {
  /** Records the device; answers whether it brought a push token other than the one it last reported, or from another session. */
  touchDevice(userId: string, device: DeviceReport, sessionId: string): Promise<boolean>;
  /** Applies a change if it wins (last writer by updatedAt); answers whether it did. */
  merge(userId: string, deviceId: string, change: SyncChange): Promise<boolean>;
  changesSince(userId: string, cursor: number, limit: number, exclude: Set<string>): Promise<{ items: SyncItem[]; next: number; hasMore: boolean }>;
  itemsByKeys(userId: string, keys: string[]): Promise<SyncItem[]>;
  /** The cursor of the user's newest change (0 before any). */
  currentCursor(userId: string): Promise<number>;
  /** What the user's export shows of desktop: their devices (never a token) and how much sync data there is. */
  summaryOf(userId: string): Promise<DesktopSummary>;
  /** Drops every sync item, device and counter of a deleted user; answers how many records went (0 on a replay). */
  removeUser(userId: string): Promise<number>;
}

export interface DesktopSummary {
  devices: Array<{ id: string; platform: string; appVersion: string; lastSyncAt: string | null }>;
  sync: { items: number; cursor: string };
}

export interface SyncLimits {
  maxChanges: number;
  maxValueBytes: number;
  pageSize: number;
}
