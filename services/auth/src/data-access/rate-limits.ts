// Redis-backed rate limits (rate-limiter-flexible), enforced inside auth so that no path around the
// gateway skips them. A spent limit answers 429 with Retry-After.
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AuthErrors } from '../errors';

export interface RateLimitSettings {
  loginIpPerMinute: number;
  loginFailuresPerAccount: number;
  loginFailureWindowSeconds: number;
  registerIpPerHour: number;
  forgotIpPerHour: number;
  forgotEmailPerHour: number;
  otpIpPerMinute: number;
}

type LimiterName = 'loginIp' | 'loginFailures' | 'registerIp' | 'forgotIp' | 'forgotEmail' | 'otpIp';

export class RateLimits {
  private readonly limiters: Record<LimiterName, RateLimiterRedis>;

  constructor(redis: Redis, settings: RateLimitSettings) {
    const make = (keyPrefix: string, points: number, duration: number) =>
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `rl:${keyPrefix}`, points, duration });
    this.limiters = {
      loginIp: make('login-ip', settings.loginIpPerMinute, 60),
      loginFailures: make('login-fail', settings.loginFailuresPerAccount, settings.loginFailureWindowSeconds),
      registerIp: make('register-ip', settings.registerIpPerHour, 3600),
      forgotIp: make('forgot-ip', settings.forgotIpPerHour, 3600),
      forgotEmail: make('forgot-email', settings.forgotEmailPerHour, 3600),
      otpIp: make('otp-ip', settings.otpIpPerMinute, 60),
    };
  }

  /** Spends one point; throws 429 when none is left. */
  async consume(name: LimiterName, key: string): Promise<void> {
    try {
      await this.limiters[name].consume(key);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw AuthErrors.rateLimited(err.msBeforeNext / 1000);
      throw err;
    }
  }

  /**
   * Throws 429 when the key has no point left, without spending one (the failure counter).
   * Answers the points spent so far in the window.
   */
  async check(name: LimiterName, key: string): Promise<number> {
    const res = await this.limiters[name].get(key);
    if (res && res.remainingPoints <= 0) throw AuthErrors.rateLimited(res.msBeforeNext / 1000);
    return res?.consumedPoints ?? 0;
  }

  /** Spends a point without throwing (records a failure). */
  async penalize(name: LimiterName, key: string): Promise<void> {
    await this.limiters[name].penalty(key, 1);
  }

  async reset(name: LimiterName, key: string): Promise<void> {
    await this.limiters[name].delete(key);
  }
}
