// The refresh cookie's attributes by mode, set and cleared alike (the end-to-end refresh file checks
// the development answer through the stack; production's was a stack of its own until this file).
import http from 'node:http';
import { InternalHeaders } from '@acct/shared';
import { ROUTES } from '@acct/shared/routes';
import { clearedFlowCookie, clearedRefreshCookie, flowCookie, refreshCookie } from '../src/refresh-cookie';
import { cookiesFromService, cookiesToService } from '../src/refresh-cookie-bridge';

describe('the refresh cookie', () => {
  const now = Date.UTC(2026, 0, 1);

  it('is HttpOnly, Secure and SameSite=None in production, with the session’s Max-Age, on the kind’s auth path', () => {
    expect(refreshCookie('user', 'a.b', true, 604800, now)).toBe(
      'userRefreshToken=a.b; Max-Age=604800; Path=/api/auth/user; Expires=Thu, 08 Jan 2026 00:00:00 GMT; HttpOnly; Secure; SameSite=None',
    );
    expect(refreshCookie('admin', 'a.b', true, undefined, now)).toBe('adminRefreshToken=a.b; Path=/api/auth/admin; HttpOnly; Secure; SameSite=None');
  });

  it('is cleared in production with the attributes it was set with, or a browser keeps the Secure one', () => {
    expect(clearedRefreshCookie('user', true)).toBe('userRefreshToken=; Path=/api/auth/user; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=None');
  });

  it('is SameSite=Lax and not Secure elsewhere, set and cleared', () => {
    expect(refreshCookie('user', 'a b', false, 60, now)).toBe('userRefreshToken=a%20b; Max-Age=60; Path=/api/auth/user; Expires=Thu, 01 Jan 2026 00:01:00 GMT; HttpOnly; SameSite=Lax');
    expect(clearedRefreshCookie('admin', false)).toBe('adminRefreshToken=; Path=/api/auth/admin; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax');
  });
});

describe('the flow and trusted-browser cookies', () => {
  const now = Date.UTC(2026, 0, 1);
  const route = (id: string) => ROUTES.find((r) => r.operationId === id)!;

  it('binds each family of flow to its own routes: the provider’s under oidc, the email sign-in’s under email-sign-in', () => {
    expect(flowCookie('oidc', 'user', 's', true, 600, now)).toBe('identityFlow=s; Max-Age=600; Path=/api/auth/user/oidc; Expires=Thu, 01 Jan 2026 00:10:00 GMT; HttpOnly; Secure; SameSite=Lax');
    expect(flowCookie('email-sign-in', 'admin', 'a.b', false, 600, now)).toBe('emailSignInFlow=a.b; Max-Age=600; Path=/api/auth/admin/email-sign-in; Expires=Thu, 01 Jan 2026 00:10:00 GMT; HttpOnly; SameSite=Lax');
    expect(clearedFlowCookie('email-sign-in', 'user', false)).toBe('emailSignInFlow=; Path=/api/auth/user/email-sign-in; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax');
    // The email sign-in's request sets it; its link's route reads it, and only that route of the family.
    const set: string[] = [];
    cookiesFromService(route('requestEmailSignInUser'), { [InternalHeaders.setBrowserFlow]: 'id.secret', [InternalHeaders.browserFlowMaxAge]: '600' }, false, set);
    expect(set).toEqual(['Set-Cookie', expect.stringMatching(/^emailSignInFlow=id\.secret; Max-Age=600; Path=\/api\/auth\/user\/email-sign-in;/)]);
    const inbound: http.OutgoingHttpHeaders = {};
    cookiesToService(route('emailLinkSignInUser'), 'identityFlow=other; emailSignInFlow=id.secret', inbound);
    expect(inbound[InternalHeaders.browserFlow]).toBe('id.secret');
    const code: http.OutgoingHttpHeaders = {};
    cookiesToService(route('emailCodeSignInUser'), 'emailSignInFlow=id.secret', code);
    expect(code[InternalHeaders.browserFlow]).toBeUndefined();
  });

  it('keeps a trusted browser in the kind the second step’s answer names, read only by that kind’s login', () => {
    const set: string[] = [];
    cookiesFromService(route('verifyOtp'), { [InternalHeaders.refreshTokenKind]: 'user', [InternalHeaders.setTrustedBrowser]: 'tid.tsecret', [InternalHeaders.trustedBrowserMaxAge]: '2592000' }, true, set);
    expect(set.filter((line) => line.startsWith('userTrustedBrowser'))).toEqual([expect.stringMatching(/^userTrustedBrowser=tid\.tsecret; Max-Age=2592000; Path=\/api\/auth\/user\/login; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict$/)]);
    const asUser: http.OutgoingHttpHeaders = {};
    cookiesToService(route('loginUser'), 'userTrustedBrowser=tid.tsecret; adminTrustedBrowser=other', asUser);
    expect(asUser[InternalHeaders.trustedBrowser]).toBe('tid.tsecret');
    const asAdmin: http.OutgoingHttpHeaders = {};
    cookiesToService(route('loginAdmin'), 'userTrustedBrowser=tid.tsecret', asAdmin);
    expect(asAdmin[InternalHeaders.trustedBrowser]).toBeUndefined();
    // No other route reads it, nor may any other answer set it.
    const elsewhere: string[] = [];
    cookiesFromService(route('loginUser'), { [InternalHeaders.setTrustedBrowser]: 'tid.tsecret' }, false, elsewhere);
    expect(elsewhere.some((line) => line.includes('TrustedBrowser'))).toBe(false);
  });
});
