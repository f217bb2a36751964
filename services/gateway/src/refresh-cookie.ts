// The refresh cookies, with the spec's attributes: HttpOnly; Secure and SameSite=None only in
// production, else SameSite=Lax; Max-Age as auth's session policy says (7 days by default, the
// spec's 604800000 ms), sent by auth with the token. Cleared with the same attributes. Serialised as
// express's res.cookie/clearCookie would, attribute for attribute. Path is the kind's auth routes
// (`/api/auth/<kind>`, where refresh and logout read it; the spec names no path), so the hosted
// pages and every other route of the origin never carry it. A cookie an earlier release set at `/`
// is left to expire (within its Max-Age): a browser sends the more specific path's first, which is
// the one the gateway reads, and one Set-Cookie per answer keeps clients whose jar knows cookies by
// name alone (no path) on the new token.
import type { AccountKind } from '@acct/shared';
import type { BrowserFlowFamily } from '@acct/shared/routes';

export const refreshCookieName = (kind: AccountKind) => (kind === 'admin' ? 'adminRefreshToken' : 'userRefreshToken');

function attributes(production: boolean): string {
  return `HttpOnly${production ? '; Secure; SameSite=None' : '; SameSite=Lax'}`;
}

/** The routes that read the kind's refresh cookie (refresh, logout) are under this path. */
export const refreshCookiePath = (kind: AccountKind) => `/api/auth/${kind}`;

/** The cookie for a new refresh token; without a lifetime from auth, a cookie that ends with the browser session. */
export function refreshCookie(kind: AccountKind, token: string, production: boolean, maxAgeSeconds: number | undefined, now = Date.now()): string {
  const path = refreshCookiePath(kind);
  const lifetime = maxAgeSeconds && maxAgeSeconds > 0 ? `; Max-Age=${maxAgeSeconds}; Path=${path}; Expires=${new Date(now + maxAgeSeconds * 1000).toUTCString()}` : `; Path=${path}`;
  return `${refreshCookieName(kind)}=${encodeURIComponent(token)}${lifetime}; ${attributes(production)}`;
}

export function clearedRefreshCookie(kind: AccountKind, production: boolean): string {
  return `${refreshCookieName(kind)}=; Path=${refreshCookiePath(kind)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT; ${attributes(production)}`;
}

/**
 * The cookie of a browser its owner trusted at a second step: only the kind's login reads it
 * (`Path=/api/auth/<kind>/login`), HttpOnly, SameSite=Strict (the login is the page's own call),
 * Secure in production, for the days auth says.
 */
export const trustedBrowserCookieName = (kind: AccountKind) => (kind === 'admin' ? 'adminTrustedBrowser' : 'userTrustedBrowser');

export function trustedBrowserCookie(kind: AccountKind, value: string, production: boolean, maxAgeSeconds: number, now = Date.now()): string {
  return `${trustedBrowserCookieName(kind)}=${encodeURIComponent(value)}; Max-Age=${maxAgeSeconds}; Path=/api/auth/${kind}/login; Expires=${new Date(now + maxAgeSeconds * 1000).toUTCString()}; HttpOnly${production ? '; Secure' : ''}; SameSite=Strict`;
}

/**
 * The cookie that binds a flow to the browser that started it (a sign-in with an identity provider,
 * or by email): one per family, only its kind's routes of that family get it, SameSite=Lax so that a
 * provider's top-level redirect back carries it, Secure in production. The provider's keeps its name.
 */
export const FLOW_COOKIES: Record<BrowserFlowFamily, string> = { oidc: 'identityFlow', 'email-sign-in': 'emailSignInFlow' };
const flowPath = (family: BrowserFlowFamily, kind: AccountKind) => `/api/auth/${kind}/${family}`;

export function flowCookie(family: BrowserFlowFamily, kind: AccountKind, value: string, production: boolean, maxAgeSeconds: number, now = Date.now()): string {
  return `${FLOW_COOKIES[family]}=${encodeURIComponent(value)}; Max-Age=${maxAgeSeconds}; Path=${flowPath(family, kind)}; Expires=${new Date(now + maxAgeSeconds * 1000).toUTCString()}; HttpOnly${production ? '; Secure' : ''}; SameSite=Lax`;
}

export function clearedFlowCookie(family: BrowserFlowFamily, kind: AccountKind, production: boolean): string {
  return `${FLOW_COOKIES[family]}=; Path=${flowPath(family, kind)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly${production ? '; Secure' : ''}; SameSite=Lax`;
}
