// Authenticator-app codes through `otpauth` (RFC 6238), behind the domain's TotpCodes port.
import { Secret, TOTP } from 'otpauth';
import { TOTP_PERIOD_SECONDS, type TotpCodes } from '../domain/factors/ports';

/** What an authenticator app reads: 6 digits, the domain's 30 s step, SHA-1. */
const SETTINGS = { algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_SECONDS } as const;
/** Steps of clock skew accepted either way. */
const WINDOW = 1;

export class OtpauthTotp implements TotpCodes {
  newSecret(): string {
    return new Secret({ size: 20 }).base32;
  }

  stepOf(secret: string, code: string, now = Date.now()): number | undefined {
    const delta = new TOTP({ ...SETTINGS, secret: Secret.fromBase32(secret) }).validate({ token: code, timestamp: now, window: WINDOW });
    return delta === null ? undefined : Math.floor(now / 1000 / SETTINGS.period) + delta;
  }

  uri(secret: string, issuer: string, label: string): string {
    return new TOTP({ ...SETTINGS, issuer, label, secret: Secret.fromBase32(secret) }).toString();
  }
}
