// Redis-backed rate limits (rate-limiter-flexible), enforced inside auth so that no path around the
// gateway skips them. The store answers allowed or retry-after; the use case decides the 429
// (domain/shared/limits.ts). Failed logins have their own store (redis-login-attempts.ts): they are
// reserved before the password compare.
import type { Redis } from '@acct/shared/redis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { LimitAnswer, LimiterName, RateLimits } from '../domain/shared/ports';

export interface RateLimitSettings {
  loginIpPerMinute: number;
  registerIpPerHour: number;
  forgotIpPerHour: number;
  forgotEmailIpPerHour: number;
  forgotEmailPerHour: number;
  resetIpPerHour: number;
  otpIpPerMinute: number;
  passkeyOptionsIpPerMinute: number;
  passwordCheckIpPerMinute: number;
  emailLinkIpPerHour: number;
  openIdStartIpPerMinute: number;
  botCheckIpPerMinute: number;
}

export class RedisRateLimits implements RateLimits {
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
      passkeyOptionsIp: make('passkey-options-ip', settings.passkeyOptionsIpPerMinute, 60),
      passwordCheckIp: make('password-check-ip', settings.passwordCheckIpPerMinute, 60),
      emailLinkIp: make('email-link-ip', settings.emailLinkIpPerHour, 3600),
      openIdStartIp: make('openid-start-ip', settings.openIdStartIpPerMinute, 60),
      botCheckIp: make('bot-check-ip', settings.botCheckIpPerMinute, 60),
    };
  }

  async consume(name: LimiterName, key: string): Promise<LimitAnswer> {
    try {
      await this.limiters[name].consume(key);
      return { allowed: true };
    } catch (err) {
      if (err instanceof RateLimiterRes) return { allowed: false, retryAfterMs: err.msBeforeNext };
      throw err;
    }
  }
}
