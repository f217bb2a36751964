// The OpenID provider's pass-through at the gateway: which paths take it, and which cookies cross it
// each way. The provider's own cookies (oidc_*) pass; a refresh cookie or any other never does.
import { isOpenIdPath, providerCookies, providerSetCookies } from '../src/openid-passthrough';

describe('the OpenID pass-through', () => {
  it.each([
    ['/oidc/auth', true],
    ['/oidc/token', true],
    ['/oidc/interaction/abc/login', true],
    ['/.well-known/openid-configuration', true],
    ['/device', true],
    ['/device/abc', true],
    ['/devices', false],
    ['/oidc', false],
    ['/.well-known/jwks.json', false],
    ['/api/auth/user/login', false],
  ])('takes %s: %s', (path, taken) => {
    expect(isOpenIdPath(path)).toBe(taken);
  });

  it("sends on the provider's cookies alone", () => {
    expect(providerCookies('userRefreshToken=r; oidc_session=s; oidc_session.sig=t; adminRefreshToken=a; other=o')).toBe('oidc_session=s; oidc_session.sig=t');
    expect(providerCookies('userRefreshToken=r; xoidc_session=s')).toBeUndefined();
    expect(providerCookies('oidc_interaction')).toBe('oidc_interaction');
    expect(providerCookies(undefined)).toBeUndefined();
  });

  it("passes back the provider's Set-Cookie lines alone, one or several", () => {
    const several: string[] = [];
    providerSetCookies({ 'set-cookie': ['oidc_interaction=u; path=/oidc/interaction/u; httponly', 'userRefreshToken=x; path=/', 'oidc_resume=u; path=/oidc/auth/u'] }, several);
    expect(several).toEqual(['Set-Cookie', 'oidc_interaction=u; path=/oidc/interaction/u; httponly', 'Set-Cookie', 'oidc_resume=u; path=/oidc/auth/u']);
    const one: string[] = [];
    providerSetCookies({ 'set-cookie': 'oidc_session=s; path=/' as unknown as string[] }, one);
    expect(one).toEqual(['Set-Cookie', 'oidc_session=s; path=/']);
    const none: string[] = [];
    providerSetCookies({}, none);
    expect(none).toEqual([]);
  });
});
