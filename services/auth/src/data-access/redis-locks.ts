// A short mutual exclusion across auth replicas (Redis `lock:{<name>}`): for a check and a write that
// must not interleave with another replica's (the last admin is not deleted by two admins at once).
// The lock expires by itself if its holder dies; it is released only by its holder.
import { randomBytes } from 'node:crypto';
import type { Redis } from '@acct/shared/redis';
import type { Locks } from '../domain/shared/ports';

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

type ScriptClient = Redis & { lockRelease(key: string, holder: string): Promise<number> };

export class RedisLocks implements Locks {
  private readonly redis: ScriptClient;

  constructor(
    redis: Redis,
    private readonly options: { ttlMs: number; waitMs: number } = { ttlMs: 10_000, waitMs: 3_000 },
  ) {
    redis.defineCommand('lockRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis = redis as ScriptClient;
  }

  async run<T>(name: string, work: () => Promise<T>): Promise<T | 'busy'> {
    const key = `lock:{${name}}`;
    const holder = randomBytes(16).toString('base64url');
    const until = Date.now() + this.options.waitMs;
    while ((await this.redis.set(key, holder, 'PX', this.options.ttlMs, 'NX')) !== 'OK') {
      // Held elsewhere for longer than a request should wait: busy (the domain answers 503, the client retries).
      if (Date.now() > until) return 'busy';
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    try {
      return await work();
    } finally {
      await this.redis.lockRelease(key, holder).catch(() => undefined);
    }
  }
}
