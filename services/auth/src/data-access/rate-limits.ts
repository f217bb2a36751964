// Redis-backed rate limits (rate-limiter-flexible), enforced inside auth so that no path around the
// gateway skips them. A spent limit answers 429 with Retry-After. Failed logins have their own
// store (login-attempt-store.ts): they are reserved before the password compare.
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AuthErrors } from '../errors';

export interface RateLimitSettings {
  loginIpPerMinute: number;
  registerIpPerHour: number;
  forgotIpPerHour: number;
  forgotEmailIpPerHour: number;
  forgotEmailPerHour: number;
  resetIpPerHour: number;
  otpIpPerMinute: number;
}

type LimiterName = 'loginIp' | 'registerIp' | 'forgotIp' | 'forgotEmailIp' | 'forgotEmail' | 'resetIp' | 'otpIp';

export class RateLimits {
  private readonly limiters: Record<LimiterName, RateLimiterRedis>;

  constructor(redis: Redis, settings: RateLimitSettings) {
    const make = (keyPrefix: string, points: number, duration: number) =>
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `rl:${keyPrefix}`, points, duration });
    this.limiters = {
      loginIp: make('login-ip', settings.loginIpPerMinute, 60),
      registerIp: make('register-ip', settings.registerIpPerHour, 3600),
      forgotIp: make('forgot-ip', settings.forgotIpPerHour, 3600),
      forgotEmailIp: make('forgot-email-ip', settings.forgotEmailIpPerHour, 3600),
      forgotEmail: make('forgot-email', settings.forgotEmailPerHour, 3600),
      resetIp: make('reset-ip', settings.resetIpPerHour, 3600),
      otpIp: make('otp-ip', settings.otpIpPerMinute, 60),
    };
  }

  /** Spends one point; throws 429 when none is left. */
  async consume(name: LimiterName, key: string): Promise<void> {
    const retryAfterMs = await this.spend(name, key);
    if (retryAfterMs !== undefined) throw AuthErrors.rateLimited(retryAfterMs / 1000);
  }

  /** Spends one point; answers false when none was left (for a limit that must not answer 429). */
  async tryConsume(name: LimiterName, key: string): Promise<boolean> {
    return (await this.spend(name, key)) === undefined;
  }

  /** Answers undefined when a point was spent, else the milliseconds until one is free. */
  private async spend(name: LimiterName, key: string): Promise<number | undefined> {
    try {
      await this.limiters[name].consume(key);
      return undefined;
    } catch (err) {
      if (err instanceof RateLimiterRes) return err.msBeforeNext;
      throw err;
    }
  }
}
