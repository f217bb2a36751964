// Refresh sessions in Redis. One hash per session (`rs:{<sid>}`; the hash tag keeps every script on
// one Redis Cluster slot), holding only token hashes. Rotation is one Lua script, so exactly one
// successor is minted per token; a rotated-out token replayed within the grace window gets that same
// successor (kept encrypted under a key only the old token can derive), and replayed later revokes
// the session (reuse detection, RFC 9700 §4.14) once its successor was used: a token two rotations
// old is theft. The token just rotated out, presented after the window while its successor was never
// presented, is an app retrying a refresh whose answer was lost (an outage longer than the window):
// it gets the same successor for a few minutes after the rotation (`prevLateUntil`) and a few times
// (`lateCount`, LATE_RETRIES), once in every three rotations (`late` counts the rotations since the
// last such retry), so two holders taking turns with one session are still caught at the second
// turn, and a stolen token rotated once is theft again once those minutes or retries are spent. Every way a session ends goes on the revocation feed first, so that its access tokens are
// refused by every replica of every service within a second. A credential change (revokeAll) marks
// each of the account's sessions superseded in its own hash before it announces and deletes them:
// the rotation script refuses a marked session by itself, with no read of the account's epoch key
// (another slot in Redis Cluster, and a second round trip on every refresh), so a session survives
// no change even when the announcement fails and the deletion never comes.
import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';
import type { Redis } from '@acct/shared/redis';
import type { AccountKind } from '@acct/shared';
import type { RevocationFeed } from '@acct/shared/redis';
import type { NewSession, OpenedStoredSession, RotateResult, SessionInfo, Sessions } from '../domain/shared/ports';
import { mintToken, parseToken, sha256, type OpaqueToken } from './opaque-token';
import { ReplicaWait, execOrThrow, type ReplicaAck } from './redis-transaction';

const ROTATE = `
local s = redis.call('HMGET', KEYS[1], 'kind', 'accountId', 'role', 'cur', 'prev', 'prevEnc', 'prevUntil', 'absExp', 'late', 'superseded', 'prevLateUntil', 'lateCount')
if not s[1] then return {'missing'} end
if s[1] ~= ARGV[7] then return {'wrong_kind'} end
if s[10] then return {'superseded'} end
local now = tonumber(ARGV[4])
if now >= tonumber(s[8]) then
  redis.call('DEL', KEYS[1])
  return {'expired'}
end
if s[4] == ARGV[1] then
  redis.call('HSET', KEYS[1], 'cur', ARGV[2], 'prev', ARGV[1], 'prevEnc', ARGV[3], 'prevUntil', ARGV[5], 'usedAt', ARGV[4], 'prevLateUntil', ARGV[8])
  redis.call('HDEL', KEYS[1], 'lateCount')
  if s[9] then
    if tonumber(s[9]) >= 2 then redis.call('HDEL', KEYS[1], 'late') else redis.call('HSET', KEYS[1], 'late', tonumber(s[9]) + 1) end
  end
  redis.call('PEXPIRE', KEYS[1], math.min(tonumber(ARGV[6]), tonumber(s[8]) - now))
  return {'rotated', s[2], s[3], '', s[8]}
end
if s[5] == ARGV[1] and now <= tonumber(s[7]) then
  return {'grace', s[2], s[3], s[6], s[8]}
end
if s[5] == ARGV[1] and (not s[9] or s[9] == '0') and s[11] and now <= tonumber(s[11]) and tonumber(s[12] or '0') < tonumber(ARGV[9]) then
  redis.call('HSET', KEYS[1], 'late', '0')
  redis.call('HINCRBY', KEYS[1], 'lateCount', 1)
  return {'late_retry', s[2], s[3], s[6], s[8]}
end
redis.call('DEL', KEYS[1])
return {'reused', s[2], s[3]}
`;

// The account's credential epoch only ever moves on, whatever order two changes are recorded in.
const RAISE_EPOCH = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
`;

// Marks a session ended by a credential change; never makes a hash of one that is gone.
const SUPERSEDE = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'superseded', '1') end
return 1
`;

const REVOKE = `
local s = redis.call('HMGET', KEYS[1], 'kind', 'cur', 'prev', 'accountId')
if not s[1] or s[1] ~= ARGV[2] then return false end
if s[2] == ARGV[1] or s[3] == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return s[4]
end
return false
`;

/** How many times the token just rotated out may be retried late, per rotation (an app's retries of one lost answer). */
export const LATE_RETRIES = 3;

export interface SessionPolicy {
  idleTtlMs: number;
  graceMs: number;
  /** How long after its rotation a token whose successor was never presented may still be retried (an answer lost). */
  lateRetryMs: number;
  maxAgeMs: Record<AccountKind, number>;
  /** Live sessions an account may have; opening one more ends the oldest. */
  maxPerAccount: number;
  /** How long an ended session's access tokens may still be presented (the longest access token, plus clock skew). */
  revocationRetentionMs: number;
  /** Replicas that must hold a session's creation, rotation and an epoch raise before they are answered (Sentinel, Cluster). */
  replicaAck?: ReplicaAck;
}

/** Where endings are announced to every replica: appended before the session is deleted, and a failure throws. */
export type RevocationPublisher = Pick<RevocationFeed, 'publish'>;

type ScriptClient = Redis & {
  refreshRotate(key: string, ...args: string[]): Promise<string[]>;
  refreshRevoke(key: string, ...args: string[]): Promise<string | null>;
  raiseEpoch(key: string, epoch: string): Promise<number>;
  refreshSupersede(key: string): Promise<number>;
};

export class RedisSessions implements Sessions {
  private readonly redis: ScriptClient;
  private readonly replicas: ReplicaWait;

  constructor(
    redis: Redis,
    private readonly policy: SessionPolicy,
    private readonly revocations: RevocationPublisher,
    private readonly now: () => number = Date.now,
  ) {
    redis.defineCommand('refreshRotate', { numberOfKeys: 1, lua: ROTATE });
    redis.defineCommand('refreshRevoke', { numberOfKeys: 1, lua: REVOKE });
    redis.defineCommand('raiseEpoch', { numberOfKeys: 1, lua: RAISE_EPOCH });
    redis.defineCommand('refreshSupersede', { numberOfKeys: 1, lua: SUPERSEDE });
    this.redis = redis as ScriptClient;
    this.replicas = new ReplicaWait(policy.replicaAck, now);
  }

  /** Starts a session and answers its first refresh token. */
  async create(owner: NewSession): Promise<OpenedStoredSession | 'superseded'> {
    const token = mintToken();
    const now = this.now();
    const absExp = now + this.policy.maxAgeMs[owner.kind];
    const key = sessionKey(token.id);
    const accountKey = accountSessionsKey(owner.kind, owner.accountId);
    await execOrThrow(
      this.redis
        .multi()
        .hset(key, {
          kind: owner.kind,
          accountId: owner.accountId,
          role: owner.role,
          epoch: String(owner.credentialEpoch),
          cur: sha256(token.value),
          prev: '',
          prevEnc: '',
          prevUntil: '0',
          absExp: String(absExp),
          createdAt: String(now),
          // Where it was opened from, for the owner's list; never read by a script.
          ...(owner.ip ? { ip: owner.ip } : {}),
          ...(owner.userAgent ? { ua: owner.userAgent } : {}),
          ...(owner.app ? { appId: owner.app.id, appName: owner.app.name } : {}),
        })
        .pexpire(key, Math.min(this.policy.idleTtlMs, absExp - now)),
    );
    await this.replicas.after(this.redis, key);
    // Separate from the script's slot on purpose: only revokeAll reads it, key by key.
    await execOrThrow(this.redis.multi().sadd(accountKey, token.id).pexpire(accountKey, this.policy.maxAgeMs[owner.kind]));
    // Checked after the session is findable: a change recorded before this read is seen here, and one
    // recorded after it finds the session in the account's set and ends it.
    if (await this.epochMovedOn(owner.kind, owner.accountId, owner.credentialEpoch)) {
      await this.revokeSession(owner.kind, owner.accountId, token.id);
      return 'superseded';
    }
    return { token: token.value, sessionId: token.id, endsAt: absExp, evicted: await this.evictBeyondCap(owner.kind, owner.accountId) };
  }

  /** Ends the oldest of the account's live sessions until it has at most the cap; answers their ids. */
  private async evictBeyondCap(kind: AccountKind, accountId: string): Promise<string[]> {
    if ((await this.redis.scard(accountSessionsKey(kind, accountId))) <= this.policy.maxPerAccount) return [];
    const live = await this.list(kind, accountId);
    const evicted = live.slice(this.policy.maxPerAccount).map((s) => s.id);
    for (const id of evicted) await this.revokeSession(kind, accountId, id);
    return evicted;
  }

  async rotate(kind: AccountKind, presented: string): Promise<RotateResult> {
    const token = parseToken(presented);
    if (!token) return { outcome: 'invalid' };
    const successor = mintToken(token.id);
    const now = this.now();
    const reply = await this.redis.refreshRotate(
      sessionKey(token.id),
      sha256(token.value),
      sha256(successor.value),
      sealSuccessor(token, successor.value),
      String(now),
      String(now + this.policy.graceMs),
      String(this.policy.idleTtlMs),
      kind,
      String(now + this.policy.lateRetryMs),
      String(LATE_RETRIES),
    );
    const [outcome, accountId, role, sealed, absExp] = reply;
    // A rotation a failover lost would make the client's new token unknown: its session would end.
    if (outcome === 'rotated') await this.replicas.after(this.redis, sessionKey(token.id));
    const owner = { kind, accountId, role };
    switch (outcome) {
      case 'rotated':
        return { outcome, token: successor.value, sessionId: token.id, owner, endsAt: Number(absExp) };
      case 'grace':
      case 'late_retry': {
        const same = openSuccessor(token, sealed);
        return same ? { outcome, token: same, sessionId: token.id, owner, endsAt: Number(absExp) } : { outcome: 'invalid' };
      }
      case 'reused':
        // The script deleted the session; its access tokens end too.
        await this.revocations.publish([token.id], this.retention);
        return { outcome, sessionId: token.id, owner };
      case 'superseded':
        // A credential change marked it and may not have ended it (its announcement failed): done here.
        await this.end([token.id], () => this.redis.del(sessionKey(token.id)));
        return { outcome };
      default:
        return { outcome: outcome as 'missing' | 'wrong_kind' | 'expired' };
    }
  }

  /**
   * Whether the session an access token names is still alive, read from the store now: not logged
   * out, revoked by a reset, a disable or reuse detection, nor past its absolute lifetime. Request
   * paths ask the revocation feed instead; this read is for where a fresh answer is the point.
   */
  async isActive(kind: AccountKind, sessionId: string, accountId: string): Promise<boolean> {
    // Two reads, not one pipeline: the keys live in different Redis Cluster slots.
    const [[owner, account, absExp, epoch, superseded], current] = await Promise.all([
      this.redis.hmget(sessionKey(sessionId), 'kind', 'accountId', 'absExp', 'epoch', 'superseded'),
      this.redis.get(epochKey(kind, accountId)),
    ]);
    return owner === kind && account === accountId && !superseded && Number(absExp) > this.now() && Number(epoch ?? 0) >= Number(current ?? 0);
  }

  private async epochMovedOn(kind: AccountKind, accountId: string, credentialEpoch: number): Promise<boolean> {
    return Number((await this.redis.get(epochKey(kind, accountId))) ?? 0) > credentialEpoch;
  }

  /** Ends the session the token belongs to, if it is the session's current or previous token. */
  async revoke(kind: AccountKind, presented: string): Promise<{ sessionId: string; accountId: string } | undefined> {
    const token = parseToken(presented);
    if (!token) return undefined;
    const accountId = await this.redis.refreshRevoke(sessionKey(token.id), sha256(token.value), kind);
    if (!accountId) return undefined;
    // After the script (only it knows the token is the session's): if this throws, logout answers
    // 503 and the client's retry finds the session gone; its access token then lives out its minutes.
    await this.revocations.publish([token.id], this.retention);
    await this.redis.srem(accountSessionsKey(kind, accountId), token.id);
    return { sessionId: token.id, accountId };
  }

  async list(kind: AccountKind, accountId: string): Promise<SessionInfo[]> {
    const ids = await this.redis.smembers(accountSessionsKey(kind, accountId));
    const now = this.now();
    const sessions: SessionInfo[] = [];
    const gone: string[] = [];
    for (const id of ids) {
      const [owner, account, createdAt, usedAt, absExp, ip, ua, appId, appName] = await this.redis.hmget(sessionKey(id), 'kind', 'accountId', 'createdAt', 'usedAt', 'absExp', 'ip', 'ua', 'appId', 'appName');
      if (owner !== kind || account !== accountId || Number(absExp) <= now) {
        gone.push(id);
        continue;
      }
      sessions.push({
        id,
        createdAt: new Date(Number(createdAt)),
        lastUsedAt: new Date(Number(usedAt ?? createdAt)),
        expiresAt: new Date(Number(absExp)),
        ...(ip ? { ip } : {}),
        ...(ua ? { userAgent: ua } : {}),
        ...(appId && appName ? { app: { id: appId, name: appName } } : {}),
      });
    }
    // Sessions that ended by themselves (idle, absolute lifetime) leave their id behind.
    if (gone.length) await this.redis.srem(accountSessionsKey(kind, accountId), ...gone);
    return sessions.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  async revokeSession(kind: AccountKind, accountId: string, sessionId: string): Promise<boolean> {
    const [owner, account] = await this.redis.hmget(sessionKey(sessionId), 'kind', 'accountId');
    if (owner !== kind || account !== accountId) return false;
    return this.end([sessionId], async () => {
      await this.redis.srem(accountSessionsKey(kind, accountId), sessionId);
      return (await this.redis.del(sessionKey(sessionId))) === 1;
    });
  }

  async revokeOthers(kind: AccountKind, accountId: string, keepSessionId: string): Promise<string[]> {
    const accountKey = accountSessionsKey(kind, accountId);
    const others = (await this.redis.smembers(accountKey)).filter((id) => id !== keepSessionId);
    return this.end(others, async () => {
      const ended: string[] = [];
      for (const id of others) {
        if ((await this.redis.del(sessionKey(id))) === 1) ended.push(id);
        await this.redis.srem(accountKey, id);
      }
      return ended;
    });
  }

  /** Ends every session of an account (password reset, admin-set password, disabling), after raising its epoch. */
  async revokeAll(kind: AccountKind, accountId: string, credentialEpoch: number): Promise<number> {
    await this.redis.raiseEpoch(epochKey(kind, accountId), String(credentialEpoch));
    await this.replicas.after(this.redis, epochKey(kind, accountId));
    const accountKey = accountSessionsKey(kind, accountId);
    const ids = await this.redis.smembers(accountKey);
    // A login racing this change opens no session (its epoch is old), so these are all there are.
    // Each is marked before the announcement: should that fail, none of them refreshes again.
    await Promise.all(ids.map((id) => this.redis.refreshSupersede(sessionKey(id))));
    return this.end(ids, async () => {
      let removed = 0;
      for (const id of ids) removed += await this.redis.del(sessionKey(id));
      await this.redis.del(accountKey);
      return removed;
    });
  }

  private get retention() {
    return { retentionMs: this.policy.revocationRetentionMs };
  }

  /**
   * Announces the sessions' end on the revocation feed, then deletes them: a failure to announce
   * throws before anything is deleted, so no session ends without its access tokens ending too.
   */
  private async end<T>(sessionIds: string[], remove: () => Promise<T>): Promise<T> {
    await this.revocations.publish(sessionIds, this.retention);
    return remove();
  }
}

const sessionKey = (id: string) => `rs:{${id}}`;
const accountSessionsKey = (kind: AccountKind, accountId: string) => `rs-account:${kind}:${accountId}`;
/** The account's credential epoch as sessions are checked against it (no expiry: it is one small key per changed account). */
const epochKey = (kind: AccountKind, accountId: string) => `rs-epoch:${kind}:${accountId}`;

/**
 * The key a successor is sealed under, derived from the old token's secret. A KeyObject, not bytes:
 * on Node 24 a Buffer key costs `createCipheriv` about 12 µs of two internal brand checks that each
 * throw and catch (isKeyObject, isCryptoKey in lib/internal/crypto/keys.js), against 1 µs for a key
 * object, and auth 31 µs a refresh; on Node 20 the key object costs 1-2 µs more (bench/RESULTS.md,
 * "Refresh on Node 24").
 */
const successorKey = (old: OpaqueToken) => createSecretKey(new Uint8Array(hkdfSync('sha256', old.secret, old.id, 'refresh-successor', 32)));

/** The successor, encrypted under a key derived from the old token's secret (AES-256-GCM). */
function sealSuccessor(old: OpaqueToken, successor: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', successorKey(old), iv);
  const body = Buffer.concat([cipher.update(successor, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function openSuccessor(old: OpaqueToken, sealed: string | undefined): string | undefined {
  if (!sealed) return undefined;
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', successorKey(old), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
