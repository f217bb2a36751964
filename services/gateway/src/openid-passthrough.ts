// This service as an OpenID provider, at the gateway: everything under /oidc/, the discovery
// document and the device grant's /device page go to auth (where oidc-provider answers them) as one route of their own, with what the
// protocol needs to pass and nothing else. Inbound, the provider's cookies (named `oidc_*`: its
// session, an interaction, its resume) and the headers of OAuth requests; outbound, its Set-Cookie
// lines for those names only and the headers of its answers (WWW-Authenticate on a refused token,
// Pragma, DPoP-Nonce, the Content-Security-Policy of its own pages). A refresh cookie is never sent
// on: those stay under /api/auth/<kind>. While the provider is off, auth answers 404 here.
import type http from 'node:http';
import { OPENID_COOKIE_PREFIX, isOpenIdPath, type RouteSpec } from '@acct/shared/routes';

/** The one route the provider's paths take (its form bodies read whole, up to BODY_LIMIT). */
export const OPENID_ROUTE: RouteSpec = {
  operationId: 'openIdProvider',
  method: 'get',
  path: '/oidc/*',
  upstream: 'auth',
  body: 'json',
  caller: 'anyone',
  protocol: 'openid',
};

/** Which paths take it: the list auth routes to the provider by (libs/shared/routes/openid.ts). */
export { isOpenIdPath };

/** Request headers an OAuth client or a browser sends the provider beyond the gateway's usual ones. */
export const OPENID_REQUEST_HEADERS = ['dpop', 'content-type'];
/** Answer headers of the provider's protocol beyond the gateway's usual ones. */
export const OPENID_RESPONSE_HEADERS = ['www-authenticate', 'pragma', 'dpop-nonce', 'content-security-policy'];

const isProviderCookie = (name: string) => name.startsWith(OPENID_COOKIE_PREFIX);

/** Inbound: the Cookie header with the provider's cookies alone, or undefined when it sent none of them. */
export function providerCookies(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  const kept = cookieHeader
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => isProviderCookie(pair.slice(0, pair.indexOf('=') >>> 0)));
  return kept.length ? kept.join('; ') : undefined;
}

/** Outbound: the provider's Set-Cookie lines for its own cookie names, pushed onto the flat header list. */
export function providerSetCookies(answer: http.IncomingHttpHeaders, headers: string[]): void {
  // One line a string, several an array (as undici gives them).
  const raw = answer['set-cookie'] as string | string[] | undefined;
  const lines = Array.isArray(raw) ? raw : raw ? [raw] : [];
  for (const line of lines) {
    const name = line.slice(0, line.indexOf('=') >>> 0).trim();
    if (isProviderCookie(name)) headers.push('Set-Cookie', line);
  }
}
