import { addressBudget, canonicalAddress } from '@acct/shared';

describe('client addresses', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0001:0000:0000:0001', '2001:db8::1:0:0:1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['::1', '::1'],
    ['not-an-address', undefined],
    ['203.0.113.7, 10.0.0.1', undefined],
    ['', undefined],
  ])('canonicalAddress(%j) is %j', (given, canonical) => {
    expect(canonicalAddress(given)).toBe(canonical);
  });

  it('counts every address of one IPv6 /64 under one budget, and IPv4 addresses apart', () => {
    const budget = addressBudget('2001:db8:1:2::1');
    expect(addressBudget('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(budget);
    expect(addressBudget('2001:0db8:0001:0002:0:0:0:42')).toBe(budget);
    expect(budget).toBe('2001:db8:1:2::/64');
    expect(addressBudget('2001:db8:1:3::1')).not.toBe(budget);
    expect(addressBudget('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBudget('203.0.113.8')).not.toBe(addressBudget('203.0.113.7'));
  });
});
