// What happened to an account, kept for its owner and the admins to read back (issue 48): sign-ins
// and failed ones, every change to how it signs in, resets, address changes, sessions ended, and
// what admins did to it. Recorded where it happens, beside the event the outbox carries, with the
// request's address and device and, when someone else acted, who. A failure to record is logged and
// never undoes what happened.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { isAccountId } from './account';
import { pageParams } from './validation';
import type { ActivityEntry, Needs, NewActivity, RequestContext } from './ports';

/** What changes how an account looks, not how it signs in: the owner's name and picture. Everything else is a security entry. */
const COSMETIC_TYPES = new Set(['profile_updated', 'avatar_replaced', 'avatar_removed']);

/** Whether an entry is cosmetic: the owner's own change of name or picture (an admin's act on an account never is). */
export function isCosmetic(entry: { type: string; details?: string[] }, actedByOther: boolean): boolean {
  if (actedByOther || !COSMETIC_TYPES.has(entry.type)) return false;
  return entry.type !== 'profile_updated' || (entry.details ?? []).every((field) => field === 'name' || field === 'language');
}

export async function noteActivity(
  deps: Needs<'activity' | 'logger'>,
  ctx: RequestContext | undefined,
  entry: { kind: AccountKind; accountId: string; type: string; details?: string[] },
): Promise<void> {
  const actor = ctx?.actor && !(ctx.actor.kind === entry.kind && ctx.actor.sub === entry.accountId) ? { kind: ctx.actor.kind, id: ctx.actor.sub } : undefined;
  const record: NewActivity = {
    ...entry,
    ...(ctx?.ip && ctx.ip !== 'unknown' ? { ip: ctx.ip } : {}),
    ...(ctx?.userAgent ? { userAgent: ctx.userAgent } : {}),
    ...(actor ? { actor } : {}),
    ...(entry.details?.length ? { details: entry.details } : { details: undefined }),
    ...(isCosmetic(entry, actor !== undefined) ? { cosmetic: true as const } : {}),
  };
  await deps.activity.record(record).catch((err) => deps.logger.error({ reason: (err as Error).message, account_id: entry.accountId, type: entry.type }, 'Could not record the activity'));
}

export interface ActivityPage {
  activity: Array<Omit<ActivityEntry, 'at' | 'firstAt' | 'actor'> & { at: string; firstAt?: string; actor?: { kind: AccountKind; id?: string } }>;
  nextCursor: string | null;
}

const TYPE = /^[a-z][a-z_]{1,40}$/;

/** A page of entries, newest first: `cursor` is the previous page's `nextCursor`. */
export async function readActivity(
  deps: Needs<'activity'>,
  scope: { kind?: AccountKind; accountId?: string },
  params: { cursor?: unknown; limit?: unknown; type?: unknown; actorId?: unknown },
  audience: 'owner' | 'admin',
): Promise<ActivityPage> {
  const { limit, cursor } = pageParams(params, 20);
  const type = params.type ?? '';
  if (typeof type !== 'string' || (type !== '' && !TYPE.test(type))) throw AuthErrors.badActivityType();
  const actorId = params.actorId ?? '';
  if (typeof actorId !== 'string' || (actorId !== '' && !isAccountId(actorId))) throw AuthErrors.badActivityActor();
  const found = await deps.activity.list({ ...scope, type: type || undefined, actorId: actorId || undefined, before: cursor || undefined, limit: limit + 1 });
  const page = found.slice(0, limit);
  return {
    activity: page.map(({ at, firstAt, actor, ...entry }) => ({
      ...entry,
      at: at.toISOString(),
      ...(firstAt ? { firstAt: firstAt.toISOString() } : {}),
      // An owner learns that an admin acted, not which one.
      ...(actor ? { actor: audience === 'owner' ? { kind: actor.kind } : actor } : {}),
    })),
    nextCursor: found.length > limit ? page[page.length - 1].id : null,
  };
}
