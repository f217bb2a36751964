// The grants people gave apps (domain/apps/ports.ts `AppGrants`), in Redis: one hash per grant
// (`app-grant:<grantId>`), for as long as the session it opens could last, and a set of each app's
// grant ids (`app-grants-of:<appId>`, another key: another slot of a cluster). The session's refresh
// token is kept as it is (it is renewed here, never sent anywhere).
import type { Redis } from '@acct/shared/redis';
import type { AccountKind } from '@acct/shared';
import type { AppGrant, AppGrants } from '../domain/apps/ports';
import type { AppConsent, AppConsents } from '../domain/shared/ports';
import { execOrThrow } from './redis-transaction';

const keyOf = (grantId: string) => `app-grant:${grantId}`;
/** An app's grants (a set of ids), so that deleting the app ends each: kept as long as its newest grant. */
const ofAppKey = (appId: string) => `app-grants-of:${appId}`;

// Sets the session once: a second issuer finds it set and is told so.
const ATTACH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HSETNX', KEYS[1], 'sessionId', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'sessionToken', ARGV[2])
return 1`;

// Renews the token of a grant still kept: one removed meanwhile stays removed.
const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'sessionToken', ARGV[1])
return 1`;

export class RedisAppGrants implements AppGrants {
  constructor(private readonly redis: Redis) {}

  async save(grantId: string, grant: AppGrant, ttlMs: number): Promise<void> {
    const fields = Object.fromEntries(Object.entries(grant).filter(([, value]) => value !== undefined)) as Record<string, string>;
    await execOrThrow(this.redis.multi().del(keyOf(grantId)).hset(keyOf(grantId), fields).pexpire(keyOf(grantId), ttlMs));
    const ofApp = ofAppKey(grant.appId);
    await execOrThrow(this.redis.multi().sadd(ofApp, grantId).pexpire(ofApp, ttlMs, 'NX').pexpire(ofApp, ttlMs, 'GT'));
  }

  async find(grantId: string): Promise<AppGrant | undefined> {
    const fields = await this.redis.hgetall(keyOf(grantId));
    if (!fields.kind || !fields.accountId || !fields.appId) return undefined;
    return fields as unknown as AppGrant;
  }

  async attachSession(grantId: string, sessionId: string, sessionToken: string): Promise<boolean> {
    return (await this.redis.eval(ATTACH, 1, keyOf(grantId), sessionId, sessionToken)) === 1;
  }

  async updateSessionToken(grantId: string, sessionToken: string): Promise<void> {
    await this.redis.eval(UPDATE, 1, keyOf(grantId), sessionToken);
  }

  async remove(grantId: string): Promise<AppGrant | undefined> {
    const grant = await this.find(grantId);
    await this.redis.del(keyOf(grantId));
    if (grant) await this.redis.srem(ofAppKey(grant.appId), grantId);
    return grant;
  }

  async ofApp(appId: string): Promise<string[]> {
    // A grant that ended by its lifetime leaves its id here: it is found no more, and dropped.
    const ids = await this.redis.smembers(ofAppKey(appId));
    const kept = await Promise.all(ids.map(async (id) => ((await this.redis.exists(keyOf(id))) ? id : undefined)));
    const gone = ids.filter((_, i) => kept[i] === undefined);
    if (gone.length) await this.redis.srem(ofAppKey(appId), ...gone);
    return kept.filter((id): id is string => id !== undefined);
  }
}

/** An app's session whose end the app is told of: which app, and the `sid` its ID tokens carry. */
export interface WatchedAppSession {
  sessionId: string;
  appId: string;
  sid: string;
}

const watchKeyOf = (kind: AccountKind, accountId: string) => `app-logouts:${kind}:${accountId}`;

/**
 * The sessions of an account that apps asked to be told the end of (back-channel logout): one hash
 * per account (`app-logouts:<kind>:<accountId>`), session id to app, kept as long as a grant. An end
 * claims its entries (read and removed in one transaction), so it is told once whichever replicas
 * announce it.
 */
export class RedisAppSessionWatch {
  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
  ) {}

  async watch(kind: AccountKind, accountId: string, sessionId: string, app: { appId: string; sid: string }): Promise<void> {
    const key = watchKeyOf(kind, accountId);
    await execOrThrow(this.redis.multi().hset(key, sessionId, JSON.stringify(app)).pexpire(key, this.ttlMs));
  }

  /** The watched sessions among `sessionIds` (or every one), no longer watched. */
  async claim(kind: AccountKind, accountId: string, sessionIds: string[] | 'all'): Promise<WatchedAppSession[]> {
    const key = watchKeyOf(kind, accountId);
    let found: Array<[string, string | null]>;
    if (sessionIds === 'all') {
      const [all] = await execOrThrow(this.redis.multi().hgetall(key).del(key));
      found = Object.entries(all as Record<string, string>);
    } else {
      if (sessionIds.length === 0) return [];
      const [values] = await execOrThrow(this.redis.multi().hmget(key, ...sessionIds).hdel(key, ...sessionIds));
      found = sessionIds.map((id, i) => [id, (values as Array<string | null>)[i]]);
    }
    return found.flatMap(([sessionId, value]) => {
      if (!value) return [];
      try {
        const app = JSON.parse(value) as { appId?: unknown; sid?: unknown };
        return typeof app.appId === 'string' && typeof app.sid === 'string' ? [{ sessionId, appId: app.appId, sid: app.sid }] : [];
      } catch {
        return [];
      }
    });
  }

  async forget(kind: AccountKind, accountId: string, sessionId: string): Promise<void> {
    await this.redis.hdel(watchKeyOf(kind, accountId), sessionId);
  }
}

/** How long a consent is kept unused: a year and a month (each new consent to any app renews it). */
const CONSENT_TTL_MS = 400 * 86_400_000;
const consentKeyOf = (kind: AccountKind, accountId: string) => `app-consents:${kind}:${accountId}`;

/**
 * What people allowed apps of other parties (domain/shared/ports.ts `AppConsents`): one hash per
 * account (`app-consents:<kind>:<accountId>`), app id to `{"name","scopes","at"}`.
 */
export class RedisAppConsents implements AppConsents {
  constructor(private readonly redis: Redis) {}

  private static read(appId: string, value: string | null | undefined): AppConsent | undefined {
    if (!value) return undefined;
    try {
      const parsed = JSON.parse(value) as { name?: unknown; scopes?: unknown; at?: unknown };
      if (typeof parsed.name !== 'string' || typeof parsed.at !== 'number') return undefined;
      // Lua's cjson writes an empty list as {}: no scope.
      const scopes = Array.isArray(parsed.scopes) ? parsed.scopes.filter((s): s is string => typeof s === 'string') : [];
      return { appId, appName: parsed.name, scopes, at: new Date(parsed.at) };
    } catch {
      return undefined;
    }
  }

  async find(kind: AccountKind, accountId: string, appId: string): Promise<AppConsent | undefined> {
    return RedisAppConsents.read(appId, await this.redis.hget(consentKeyOf(kind, accountId), appId));
  }

  async allow(kind: AccountKind, accountId: string, app: { id: string; name: string }, scopes: string[]): Promise<void> {
    const key = consentKeyOf(kind, accountId);
    // Read and written in one script: two consents at once both count.
    await this.redis.eval(
      `local before = redis.call('HGET', KEYS[1], ARGV[1])
local scopes = {}
local seen = {}
if before then for _, s in ipairs(cjson.decode(before)['scopes']) do if not seen[s] then seen[s] = true; table.insert(scopes, s) end end end
for _, s in ipairs(cjson.decode(ARGV[3])) do if not seen[s] then seen[s] = true; table.insert(scopes, s) end end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode({name = ARGV[2], scopes = scopes, at = tonumber(ARGV[4])}))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`,
      1,
      key,
      app.id,
      app.name,
      JSON.stringify(scopes),
      String(Date.now()),
      String(CONSENT_TTL_MS),
    );
  }

  async list(kind: AccountKind, accountId: string): Promise<AppConsent[]> {
    const all = await this.redis.hgetall(consentKeyOf(kind, accountId));
    return Object.entries(all).flatMap(([appId, value]) => RedisAppConsents.read(appId, value) ?? []);
  }

  async forget(kind: AccountKind, accountId: string, appId?: string): Promise<void> {
    if (appId) await this.redis.hdel(consentKeyOf(kind, accountId), appId);
    else await this.redis.del(consentKeyOf(kind, accountId));
  }
}
