import { parseBytes } from '@acct/shared';
import { readCookie } from '@acct/gateway';

describe('readCookie', () => {
  it.each([
    ['userRefreshToken=abc.def', 'abc.def'],
    ['a=1; userRefreshToken=abc.def; b=2', 'abc.def'],
    ['adminRefreshToken=x; userRefreshToken="q.r"', 'q.r'],
    ['userRefreshToken=a%2Eb', 'a.b'],
    ['xuserRefreshToken=nope', undefined],
    ['userRefreshToken=', undefined],
    ['userRefreshToken=%E0%A4%A', undefined],
    ['', undefined],
  ])('reads %j as %j', (header, expected) => {
    expect(readCookie(header, 'userRefreshToken')).toBe(expected);
  });
});

describe('parseBytes', () => {
  it.each([
    ['100kb', 102_400],
    ['1mb', 1_048_576],
    ['512', 512],
    ['2.5KB', 2_560],
  ])('reads %s as %i bytes', (text, bytes) => {
    expect(parseBytes(text)).toBe(bytes);
  });

  it('refuses what is not a size', () => {
    expect(() => parseBytes('lots')).toThrow(/not a size/);
  });
});

describe('gateway config', () => {
  it('refuses a body limit that is not a size, naming the variable', async () => {
    const { loadGatewayConfig } = await import('@acct/gateway');
    expect(() => loadGatewayConfig({ BODY_LIMIT: 'lots' })).toThrow(/^Invalid configuration: BODY_LIMIT: expected a size/);
  });

  it('takes a brand colour only when white text on it reads (WCAG 4.5:1), saying how well it would', async () => {
    const { loadGatewayConfig } = await import('@acct/gateway');
    expect(loadGatewayConfig({ BRAND_COLOR: '#6b2fb3' }).BRAND_COLOR).toBe('#6b2fb3');
    expect(() => loadGatewayConfig({ BRAND_COLOR: '#ffcc00' })).toThrow(/BRAND_COLOR: white text on #ffcc00 reads at 1\.51:1; choose a darker colour/);
    expect(() => loadGatewayConfig({ BRAND_COLOR: 'purple' })).toThrow(/BRAND_COLOR: expected a colour as #rrggbb/);
  });
});
