// Wrong second-factor codes, counted per account across every place that checks one (the second
// step of a login, `reauthenticate`, confirming an authenticator) for an hour
// (`otp-fail:{<kind>:<id>}`): every `maxAttempts` of them double a wait before the next guess (from
// 1 s, at most 5 minutes) and take one guess off each new challenge (down to one), so neither
// logging in again nor another route buys fresh guesses, and the owner with the right code always
// gets through after the wait.
import type { Redis } from '@acct/shared/redis';
import type { AccountKind } from '@acct/shared';
import { execOrThrow } from './redis-transaction';
import type { CodeGuesses } from '../domain/factors/ports';

const FAILURE_WINDOW_MS = 3_600_000;
const MAX_WAIT_MS = 300_000;

export class RedisCodeGuesses implements CodeGuesses {
  constructor(
    private readonly redis: Redis,
    private readonly options: { maxAttempts: number },
  ) {}

  async waitBeforeGuess(kind: AccountKind, accountId: string): Promise<number> {
    const [failures, last] = await this.redis.mget(failuresKey(kind, accountId), lastFailureKey(kind, accountId));
    const rounds = Math.floor(Number(failures ?? 0) / this.options.maxAttempts);
    if (rounds < 1 || !last) return 0;
    const wait = Math.min(MAX_WAIT_MS, 1000 * 2 ** (rounds - 1));
    return Math.max(0, Number(last) + wait - Date.now());
  }

  async guessesPerChallenge(kind: AccountKind, accountId: string): Promise<number> {
    const failures = Number((await this.redis.get(failuresKey(kind, accountId))) ?? 0);
    return Math.max(1, this.options.maxAttempts - Math.floor(failures / this.options.maxAttempts));
  }

  async failed(kind: AccountKind, accountId: string): Promise<void> {
    await execOrThrow(
      this.redis
        .multi()
        .incr(failuresKey(kind, accountId))
        .pexpire(failuresKey(kind, accountId), FAILURE_WINDOW_MS)
        .set(lastFailureKey(kind, accountId), String(Date.now()), 'PX', FAILURE_WINDOW_MS),
    );
  }

  async succeeded(kind: AccountKind, accountId: string): Promise<void> {
    await this.redis.del(failuresKey(kind, accountId), lastFailureKey(kind, accountId));
  }
}

// One hash tag for both: they are read, written and deleted together (one Redis Cluster slot).
const failuresKey = (kind: AccountKind, accountId: string) => `otp-fail:{${kind}:${accountId}}`;
const lastFailureKey = (kind: AccountKind, accountId: string) => `otp-fail-at:{${kind}:${accountId}}`;
