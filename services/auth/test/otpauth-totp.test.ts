// The authenticator-app adapter against RFC 6238's own test vector and its skew window: what an app
// shows is accepted for its time step and one step either way, never two (the domain's rules, such as
// each step once, are test/domain/factors.test.ts's).
import { TOTP, Secret } from 'otpauth';
import { OtpauthTotp } from '../src/security/otpauth-totp';

const totp = new OtpauthTotp();
/** RFC 6238 appendix B's SHA-1 seed, "12345678901234567890", in base32. */
const RFC_SEED = Secret.fromUTF8('12345678901234567890').base32;
const codeAt = (secret: string, ms: number) => new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: ms });

describe('OtpauthTotp', () => {
  it('reads RFC 6238’s vector: at T=59 s the 6-digit code is 287082, of step 1', () => {
    expect(totp.stepOf(RFC_SEED, '287082', 59_000)).toBe(1);
    expect(totp.stepOf(RFC_SEED, '287083', 59_000)).toBeUndefined();
  });

  it('accepts the step before and after now, and refuses two steps either way', () => {
    const secret = totp.newSecret();
    const now = 1_700_000_015_000;
    const step = Math.floor(now / 30_000);
    expect(totp.stepOf(secret, codeAt(secret, now), now)).toBe(step);
    expect(totp.stepOf(secret, codeAt(secret, now - 30_000), now)).toBe(step - 1);
    expect(totp.stepOf(secret, codeAt(secret, now + 30_000), now)).toBe(step + 1);
    expect(totp.stepOf(secret, codeAt(secret, now - 60_000), now)).toBeUndefined();
    expect(totp.stepOf(secret, codeAt(secret, now + 60_000), now)).toBeUndefined();
  });

  it('makes 160-bit secrets and an otpauth URI apps read', () => {
    const secret = totp.newSecret();
    expect(Secret.fromBase32(secret).bytes).toHaveLength(20);
    expect(totp.uri(secret, 'Example', 'grace@example.com')).toBe(`otpauth://totp/Example:grace%40example.com?issuer=Example&secret=${secret}&algorithm=SHA1&digits=6&period=30`);
  });
});
