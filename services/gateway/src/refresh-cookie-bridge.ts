// The cookie contract between the gateway and auth, in one place, one step each way. Inbound
// (`cookiesToService`): the refresh token in the kind's cookie, and a browser-bound flow's cookie on
// the route that ends it (a provider's callback, an email sign-in's link), go to auth in internal
// headers. Outbound (`cookiesFromService`): auth answers a new token and its lifetime in internal
// headers (the gateway sets the kind's cookie), or asks for the cookie to be cleared (every
// refresh-token error carries that header), and sets or clears the flow cookie the same way. The
// gateway alone speaks cookies.
import type http from 'node:http';
import { InternalHeaders, type AccountKind } from '@acct/shared';
import type { BrowserFlowFamily, RouteSpec } from '@acct/shared/routes';
import { FLOW_COOKIES, clearedFlowCookie, clearedRefreshCookie, flowCookie, refreshCookie, refreshCookieName, trustedBrowserCookie, trustedBrowserCookieName } from './refresh-cookie';

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
  if (route.browserFlow?.step === 'read') {
    const value = presentedFlow(cookieHeader, route.browserFlow.family);
    if (value) outgoing[InternalHeaders.browserFlow] = value;
  }
  if (route.trustedBrowser === 'read' && route.cookieKind) {
    const value = readCookie(cookieHeader, trustedBrowserCookieName(route.cookieKind));
    if (value && HEADER_SAFE_TOKEN.test(value)) outgoing[InternalHeaders.trustedBrowser] = value;
  }
}

/** Outbound: the Set-Cookie lines auth's answer asks for on this route, pushed onto the flat header list. */
export function cookiesFromService(route: RouteSpec, answer: http.IncomingHttpHeaders, production: boolean, headers: string[]): void {
  if (route.cookieKind) {
    const cookie = refreshCookieFromAnswer(answer, cookieKindOf(route, answer), production);
    if (cookie) headers.push('Set-Cookie', cookie);
  }
  if (route.browserFlow) {
    const cookie = flowCookieFromAnswer(answer, route.browserFlow.family, route.browserFlow.kind, production);
    if (cookie) headers.push('Set-Cookie', cookie);
  }
  const trusted = answer[InternalHeaders.setTrustedBrowser];
  if (route.trustedBrowser === 'set' && route.cookieKind && typeof trusted === 'string' && HEADER_SAFE_TOKEN.test(trusted)) {
    const maxAge = Number(answer[InternalHeaders.trustedBrowserMaxAge]);
    headers.push('Set-Cookie', trustedBrowserCookie(cookieKindOf(route, answer), trusted, production, Number.isSafeInteger(maxAge) && maxAge > 0 ? maxAge : 30 * 86_400));
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

/** A browser-bound flow's cookie, as auth is to receive it on the route that ends the flow. */
export function presentedFlow(cookieHeader: string | undefined, family: BrowserFlowFamily): string | undefined {
  const value = readCookie(cookieHeader, FLOW_COOKIES[family]);
  return value && HEADER_SAFE_TOKEN.test(value) ? value : undefined;
}

/** The flow cookie that auth's answer asks for: set (a started flow) or cleared (its end). */
export function flowCookieFromAnswer(headers: http.IncomingHttpHeaders, family: BrowserFlowFamily, kind: AccountKind, production: boolean): string | undefined {
  const value = headers[InternalHeaders.setBrowserFlow];
  const maxAge = Number(headers[InternalHeaders.browserFlowMaxAge]);
  if (typeof value === 'string' && HEADER_SAFE_TOKEN.test(value)) return flowCookie(family, kind, value, production, Number.isSafeInteger(maxAge) && maxAge > 0 ? maxAge : 600);
  if (headers[InternalHeaders.clearBrowserFlow]) return clearedFlowCookie(family, kind, production);
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
