// Secrets (stored OTP code MACs) are compared in constant time.
import crypto from 'node:crypto';
import { sameSecret } from '../src/data-access/opaque-token';

describe('sameSecret', () => {
  afterEach(() => jest.restoreAllMocks());

  it('answers whether two secrets are equal, whatever their lengths', () => {
    expect(sameSecret('a-mac-value', 'a-mac-value')).toBe(true);
    expect(sameSecret('a-mac-value', 'a-mac-valuf')).toBe(false);
    expect(sameSecret('short', 'a much longer value')).toBe(false);
    expect(sameSecret('', '')).toBe(true);
  });

  it('decides through crypto.timingSafeEqual on equal-length digests, never by early exit', () => {
    const safe = jest.spyOn(crypto, 'timingSafeEqual');
    sameSecret('short', 'a much longer value');
    sameSecret('same', 'same');
    expect(safe).toHaveBeenCalledTimes(2);
    for (const [a, b] of safe.mock.calls) expect((a as Buffer).length).toBe((b as Buffer).length);
  });
});
