// The sync use case: validate, record the device (a new push token becomes device.registered),
// merge each change last-writer-wins, and answer what changed since the client's cursor.
import { assertSessionLive, type AccessClaims, type EventOutbox, type RevocationCheck } from '@acct/shared';
import { DesktopErrors } from '../errors';
import { isPlatform } from './platforms';
import type { DeviceReport, SyncChange, SyncItem, SyncLimits, SyncStore } from './ports';

interface SyncInput {
  device: DeviceReport;
  cursor: number;
  changes: SyncChange[];
}

export interface SyncAnswer {
  cursor: string;
  items: SyncItem[];
  hasMore: boolean;
  accepted: number;
  rejected: number;
}

const DAY_MS = 86_400_000;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;

function validateSync(raw: unknown, limits: SyncLimits): SyncInput {
  const body = isObject(raw) ? raw : {};
  const device = body.device;
  if (!isObject(device) || !text(device.id, 128) || !text(device.platform, 16) || !text(device.appVersion, 64)) throw DesktopErrors.deviceInvalid();
  if (!isPlatform(device.platform)) throw DesktopErrors.platformUnknown();
  if (device.pushToken !== undefined && device.pushToken !== null && !text(device.pushToken, 4096)) throw DesktopErrors.deviceInvalid();
  const cursorText = body.cursor ?? '0';
  if (typeof cursorText !== 'string' || !/^\d{1,15}$/.test(cursorText)) throw DesktopErrors.cursorInvalid();
  const rawChanges = body.changes ?? [];
  if (!Array.isArray(rawChanges)) throw DesktopErrors.changesInvalid();
  if (rawChanges.length > limits.maxChanges) throw DesktopErrors.tooManyChanges(limits.maxChanges);
  const changes = rawChanges.map((c: unknown) => {
    if (!isObject(c) || !text(c.key, 256) || !('value' in c) || typeof c.updatedAt !== 'string') throw DesktopErrors.changesInvalid();
    const updatedAt = new Date(c.updatedAt);
    if (Number.isNaN(updatedAt.getTime())) throw DesktopErrors.changesInvalid();
    if (updatedAt.getTime() > Date.now() + DAY_MS) throw DesktopErrors.changeInFuture();
    const valueJson = JSON.stringify(c.value ?? null);
    if (Buffer.byteLength(valueJson) > limits.maxValueBytes) throw DesktopErrors.valueTooLarge(limits.maxValueBytes);
    return { key: c.key, valueJson, updatedAt };
  });
  return {
    device: { id: device.id, platform: device.platform, appVersion: device.appVersion, pushToken: (device.pushToken as string | undefined) ?? undefined },
    cursor: Number(cursorText),
    changes,
  };
}

/** A user's access token of a session that has not ended (the revocation feed, from memory). */
export async function requireUserSession(revocations: RevocationCheck, claims: AccessClaims | undefined): Promise<AccessClaims> {
  if (!claims) throw DesktopErrors.authRequired();
  if (claims.kind !== 'user') throw DesktopErrors.userOnly();
  await assertSessionLive(revocations, claims);
  return claims;
}

export async function sync(deps: { repo: SyncStore; outbox: EventOutbox; limits: SyncLimits }, user: AccessClaims, raw: unknown, requestId?: string): Promise<SyncAnswer> {
  const input = validateSync(raw, deps.limits);
  const userId = user.sub;
  // A cursor the server never gave (its data was restored or reset): answering from it would skip
  // every change between the server's cursor and it, so the client is told to start over, before
  // anything of this request is applied.
  if (input.cursor > 0 && input.cursor > (await deps.repo.currentCursor(userId))) throw DesktopErrors.cursorAhead();
  const newToken = await deps.repo.touchDevice(userId, input.device, user.sid);
  if (input.device.pushToken && newToken) {
    // The token belongs to this session: when it ends, the notifier drops the token.
    await deps.outbox.add('device.registered', { userId, deviceId: input.device.id, platform: input.device.platform, pushToken: input.device.pushToken, sessionId: user.sid, requestId });
  }
  const accepted = new Set<string>();
  const rejected = new Set<string>();
  for (const change of input.changes) {
    if (await deps.repo.merge(userId, input.device.id, change)) accepted.add(change.key);
    else rejected.add(change.key);
  }
  const page = await deps.repo.changesSince(userId, input.cursor, deps.limits.pageSize, accepted);
  // A change that lost comes back with the winning version, whatever the cursor, so the client converges.
  const losers = await deps.repo.itemsByKeys(userId, [...rejected].filter((k) => !accepted.has(k) && !page.items.some((i) => i.key === k)));
  return { cursor: String(page.next), items: [...page.items, ...losers], hasMore: page.hasMore, accepted: accepted.size, rejected: rejected.size };
}
