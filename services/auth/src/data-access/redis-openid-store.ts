// The OpenID provider's records in Redis (oidc-provider's adapter interface): one JSON value per
// record (`openid:<Model>:<id>`), living as long as the provider says, with a list per grant and model
// of the records issued under it (so a revoked grant takes its codes and tokens with it) and an index by
// `uid` (sessions, interactions) and by user code (the device grant). Each command names one key, as
// a Redis Cluster needs; an index written after its record at worst points at nothing, which reads
// as not found. Consuming a record (a code, a rotated refresh token) is one atomic write on its key.
import type { Redis } from '@acct/shared/redis';
import { execOrThrow } from './redis-transaction';

interface Payload {
  grantId?: string;
  userCode?: string;
  uid?: string;
  consumed?: number;
  [field: string]: unknown;
}

/** The records that belong to a grant: revoking it removes them. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

const recordKey = (model: string, id: string) => `openid:${model}:${id}`;
/** A model's records of a grant: revoking one model's (the access tokens alone, when one is revoked) leaves the others. */
const grantKey = (model: string, grantId: string) => `openid:grant:${model}:${grantId}`;
const uidKey = (uid: string) => `openid:uid:${uid}`;
const userCodeKey = (userCode: string) => `openid:user-code:${userCode}`;

// Sets `consumed` in the JSON value without changing its lifetime; absent records answer 0.
const CONSUME = `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
local record = cjson.decode(value)
record['consumed'] = tonumber(ARGV[1])
redis.call('SET', KEYS[1], cjson.encode(record), 'KEEPTTL')
return 1`;

export class RedisOpenIdStore {
  constructor(
    private readonly redis: Redis,
    private readonly model: string,
    /**
     * Told, and awaited, when the provider revokes a grant's records of this model. It revokes every
     * model's at once, and only when the grant's tokens all end (a reused code or refresh token, a
     * token revoked at the revocation endpoint, a logout), so on one model (AccessToken, always among
     * them) this is the grant's end, within the request that ended it: the app's session ends before
     * the answer, not a moment after.
     */
    private readonly onGrantRevoked?: (grantId: string) => Promise<void>,
  ) {}

  async upsert(id: string, payload: Payload, expiresIn: number): Promise<void> {
    const key = recordKey(this.model, id);
    const seconds = Math.max(1, Math.ceil(expiresIn));
    // Sent side by side (each key may be on another node of a cluster): one round trip's wait, not four.
    const writes: Array<Promise<unknown>> = [this.redis.set(key, JSON.stringify(payload), 'EX', seconds)];
    if (GRANTABLE.has(this.model) && payload.grantId) {
      const grant = grantKey(this.model, payload.grantId);
      // The index outlives its longest record (a grant's refresh token sets the longest): a lifetime
      // set when it has none (NX), lengthened when this record's is longer (GT), in one transaction.
      writes.push(execOrThrow(this.redis.multi().rpush(grant, key).expire(grant, seconds, 'NX').expire(grant, seconds, 'GT')));
    }
    if (payload.userCode) writes.push(this.redis.set(userCodeKey(payload.userCode), id, 'EX', seconds));
    if (payload.uid) writes.push(this.redis.set(uidKey(payload.uid), id, 'EX', seconds));
    await Promise.all(writes);
  }

  async find(id: string): Promise<Payload | undefined> {
    const value = await this.redis.get(recordKey(this.model, id));
    return value ? (JSON.parse(value) as Payload) : undefined;
  }

  async findByUid(uid: string): Promise<Payload | undefined> {
    const id = await this.redis.get(uidKey(uid));
    return id ? this.find(id) : undefined;
  }

  async findByUserCode(userCode: string): Promise<Payload | undefined> {
    const id = await this.redis.get(userCodeKey(userCode));
    return id ? this.find(id) : undefined;
  }

  async consume(id: string): Promise<void> {
    await this.redis.eval(CONSUME, 1, recordKey(this.model, id), String(Math.floor(Date.now() / 1000)));
  }

  async destroy(id: string): Promise<void> {
    await this.redis.del(recordKey(this.model, id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const grant = grantKey(this.model, grantId);
    const keys = await this.redis.lrange(grant, 0, -1);
    // One key a command: the records of a grant live in slots of their own.
    for (const key of keys) await this.redis.del(key);
    await this.redis.del(grant);
    await this.onGrantRevoked?.(grantId);
  }
}
