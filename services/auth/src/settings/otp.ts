// The second step's challenge: the secret its codes are derived with, how long it stays open and how
// many codes it takes.
import { z } from 'zod';
import { env } from '@acct/shared';
import { feature } from './feature';

/** Stands in outside production; production refuses it. */
const DEVELOPMENT_OTP_SECRET = 'development-only-otp-secret';
/** OTP secrets anyone can read: the built-in one and the placeholders of this project's docs. */
const PUBLISHED_OTP_SECRETS = new Set([DEVELOPMENT_OTP_SECRET, '<openssl rand -hex 32>', 'change-me', 'changeme', 'secret']);

export const otpSettings = feature({
  variables: {
    /** Required in production; elsewhere a built-in development secret stands in. */
    OTP_SECRET: z.string().min(16).optional(),
    OTP_TTL_SECONDS: env.int(300, 1),
    OTP_MAX_ATTEMPTS: env.int(5, 1),
  },
  section: (v) => ({ secret: v.OTP_SECRET ?? DEVELOPMENT_OTP_SECRET, ttlMs: v.OTP_TTL_SECONDS * 1000, ttlSeconds: v.OTP_TTL_SECONDS, maxAttempts: v.OTP_MAX_ATTEMPTS }),
  /** A secret of its own: not the built-in or a published one, and 32 bytes or more. */
  production: (given) => {
    const secret = given.OTP_SECRET;
    if (!secret) return [['OTP_SECRET', 'required in production (a random secret of 32 bytes or more, the same on every replica)']];
    if (PUBLISHED_OTP_SECRETS.has(secret.trim())) return [['OTP_SECRET', 'a published value; in production use a random secret of 32 bytes or more (openssl rand -hex 32)']];
    if (Buffer.byteLength(secret) < 32) return [['OTP_SECRET', 'shorter than 32 bytes; in production use a random secret of 32 bytes or more (openssl rand -hex 32)']];
    return [];
  },
  policy: (s) => ({ otpTtlSeconds: s.ttlSeconds }),
});
