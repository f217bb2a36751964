// Browsers trusted to skip the second step (domain/shared/stores.ts `TrustedBrowsers`), in Redis: one
// hash per account (`trusted-browser:{<kind>:<id>}`), a field per browser holding SHA-256 of its
// secret, the credential epoch it was trusted under, when it ends and where it was trusted from.
// The key lives as long as its newest browser; an ended or outdated one is dropped when met, and an
// account keeps its MAX newest.
import type { Redis } from '@acct/shared/redis';
import type { AccountKind } from '@acct/shared';
import { mintToken, parseToken, sameSecret, sha256 } from './opaque-token';
import { execOrThrow } from './redis-transaction';
import type { TrustedBrowser, TrustedBrowsers } from '../domain/shared/ports';

/** The most browsers an account keeps trusted: the oldest go first. */
const MAX = 10;

interface Stored {
  secret: string;
  epoch: number;
  createdAt: number;
  expiresAt: number;
  ip?: string;
  userAgent?: string;
}

export class RedisTrustedBrowsers implements TrustedBrowsers {
  constructor(
    private readonly redis: Redis,
    private readonly options: { ttlMs: number },
  ) {}

  async add(kind: AccountKind, accountId: string, credentialEpoch: number, seen: { ip?: string; userAgent?: string }): Promise<string> {
    const token = mintToken();
    const now = Date.now();
    const entry: Stored = { secret: sha256(token.secret), epoch: credentialEpoch, createdAt: now, expiresAt: now + this.options.ttlMs, ...seen };
    const key = keyOf(kind, accountId);
    await execOrThrow(this.redis.multi().hset(key, token.id, JSON.stringify(entry)).pexpire(key, this.options.ttlMs));
    // Over the cap, the oldest go.
    const all = await this.entries(kind, accountId);
    const extra = all.sort((a, b) => b[1].createdAt - a[1].createdAt).slice(MAX);
    if (extra.length) await this.redis.hdel(key, ...extra.map(([id]) => id));
    return token.value;
  }

  async holds(kind: AccountKind, accountId: string, credentialEpoch: number, token: string): Promise<boolean> {
    const presented = parseToken(token);
    if (!presented) return false;
    const raw = await this.redis.hget(keyOf(kind, accountId), presented.id);
    const entry = raw ? parse(raw) : undefined;
    return entry !== undefined && live(entry, credentialEpoch) && sameSecret(entry.secret, sha256(presented.secret));
  }

  async list(kind: AccountKind, accountId: string, credentialEpoch: number): Promise<TrustedBrowser[]> {
    const all = await this.entries(kind, accountId);
    const ended = all.filter(([, e]) => !live(e, credentialEpoch)).map(([id]) => id);
    if (ended.length) await this.redis.hdel(keyOf(kind, accountId), ...ended);
    return all
      .filter(([, e]) => live(e, credentialEpoch))
      .sort((a, b) => b[1].createdAt - a[1].createdAt)
      .map(([id, e]) => ({ id, createdAt: new Date(e.createdAt), expiresAt: new Date(e.expiresAt), ...(e.ip ? { ip: e.ip } : {}), ...(e.userAgent ? { userAgent: e.userAgent } : {}) }));
  }

  async remove(kind: AccountKind, accountId: string, id: string): Promise<boolean> {
    return (await this.redis.hdel(keyOf(kind, accountId), id)) === 1;
  }

  async removeAll(kind: AccountKind, accountId: string): Promise<void> {
    await this.redis.del(keyOf(kind, accountId));
  }

  private async entries(kind: AccountKind, accountId: string): Promise<Array<[string, Stored]>> {
    const raw = await this.redis.hgetall(keyOf(kind, accountId));
    return Object.entries(raw).flatMap(([id, value]) => {
      const entry = parse(value);
      return entry ? [[id, entry] as [string, Stored]] : [];
    });
  }
}

const keyOf = (kind: AccountKind, accountId: string) => `trusted-browser:{${kind}:${accountId}}`;
const live = (entry: Stored, credentialEpoch: number) => entry.epoch === credentialEpoch && entry.expiresAt > Date.now();

function parse(value: string): Stored | undefined {
  try {
    const entry = JSON.parse(value) as Stored;
    return typeof entry.secret === 'string' && typeof entry.expiresAt === 'number' ? entry : undefined;
  } catch {
    return undefined;
  }
}
