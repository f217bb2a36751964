// The cookie contract between the gateway and auth, in one place, one step each way. Inbound
// (`cookiesToService`): the refresh token in the kind's cookie, and an identity provider's flow
// secret on its callback, go to auth in internal headers. Outbound (`cookiesFromService`): auth
// answers a new token and its lifetime in internal headers (the gateway sets the kind's cookie), or
// asks for the cookie to be cleared (every refresh-token error carries that header), and sets or
// clears the flow cookie the same way. The gateway alone speaks cookies.
import type http from 'node:http';
import { InternalHeaders, type AccountKind } from '@acct/shared';
import type { RouteSpec } from '@acct/shared/routes';
import { IDENTITY_FLOW_COOKIE, clearedIdentityFlowCookie, clearedRefreshCookie, identityFlowCookie, refreshCookie, refreshCookieName } from './refresh-cookie';

const HEADER_SAFE_TOKEN = /^[\x21-\x7e]{1,512}$/;
/**
 * Sent for a cookie value no header may carry (CR, LF, NUL, non-ASCII once decoded): it is still a
 * presented token, so auth refuses it as invalid and the cookie is cleared.
 */
const MALFORMED_REFRESH_TOKEN = 'malformed';

/** Inbound: the cookies the route reads, as the internal headers auth receives (added to `outgoing`). */
export function cookiesToService(route: RouteSpec, cookieHeader: string | undefined, outgoing: http.OutgoingHttpHeaders): void {
  if (route.readsCookie && route.cookieKind) {
    const token = presentedRefreshToken(cookieHeader, route.cookieKind);
    if (token) outgoing[InternalHeaders.refreshToken] = token;
  }
  if (route.identityFlow === 'read') {
    const secret = presentedIdentityFlow(cookieHeader);
    if (secret) outgoing[InternalHeaders.identityFlow] = secret;
  }
}

/** Outbound: the Set-Cookie lines auth's answer asks for on this route, pushed onto the flat header list. */
export function cookiesFromService(route: RouteSpec, answer: http.IncomingHttpHeaders, production: boolean, headers: string[]): void {
  if (route.cookieKind) {
    const cookie = refreshCookieFromAnswer(answer, cookieKindOf(route, answer), production);
    if (cookie) headers.push('Set-Cookie', cookie);
  }
  if (route.identityFlow && route.identityKind) {
    const cookie = identityFlowCookieFromAnswer(answer, route.identityKind, production);
    if (cookie) headers.push('Set-Cookie', cookie);
  }
}

/** The kind whose cookie the answer sets: the route's, or on a route that serves both kinds, the one the service names. */
function cookieKindOf(route: RouteSpec, headers: http.IncomingHttpHeaders): AccountKind {
  const named = headers[InternalHeaders.refreshTokenKind];
  return route.cookieKindFromAnswer && (named === 'admin' || named === 'user') ? named : (route.cookieKind as AccountKind);
}

/** The refresh token of the kind's cookie, as auth is to receive it; undefined without one. */
export function presentedRefreshToken(cookieHeader: string | undefined, kind: AccountKind): string | undefined {
  const token = readCookie(cookieHeader, refreshCookieName(kind));
  if (!token) return undefined;
  return HEADER_SAFE_TOKEN.test(token) ? token : MALFORMED_REFRESH_TOKEN;
}

/** The Set-Cookie value that auth's answer asks for: a new token with its lifetime, a cleared cookie, or none. */
export function refreshCookieFromAnswer(headers: http.IncomingHttpHeaders, kind: AccountKind, production: boolean): string | undefined {
  const token = headers[InternalHeaders.setRefreshToken];
  if (typeof token === 'string' && token) {
    const maxAge = Number(headers[InternalHeaders.refreshTokenMaxAge]);
    return refreshCookie(kind, token, production, Number.isSafeInteger(maxAge) ? maxAge : undefined);
  }
  if (headers[InternalHeaders.clearRefreshToken]) return clearedRefreshCookie(kind, production);
  return undefined;
}

/** The identity-provider flow cookie's secret, as auth is to receive it on the callback. */
export function presentedIdentityFlow(cookieHeader: string | undefined): string | undefined {
  const secret = readCookie(cookieHeader, IDENTITY_FLOW_COOKIE);
  return secret && HEADER_SAFE_TOKEN.test(secret) ? secret : undefined;
}

/** The flow cookie that auth's answer asks for: set (a started sign-in) or cleared (its callback). */
export function identityFlowCookieFromAnswer(headers: http.IncomingHttpHeaders, kind: AccountKind, production: boolean): string | undefined {
  const secret = headers[InternalHeaders.setIdentityFlow];
  const maxAge = Number(headers[InternalHeaders.identityFlowMaxAge]);
  if (typeof secret === 'string' && HEADER_SAFE_TOKEN.test(secret)) return identityFlowCookie(kind, secret, production, Number.isSafeInteger(maxAge) && maxAge > 0 ? maxAge : 600);
  if (headers[InternalHeaders.clearIdentityFlow]) return clearedIdentityFlowCookie(kind, production);
  return undefined;
}

/** One cookie's value from a Cookie header (the gateway reads only the kind's refresh cookie). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const raw = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw) || undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
