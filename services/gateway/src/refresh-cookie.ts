// The refresh cookies, with the spec's attributes: HttpOnly; Secure and SameSite=None only in
// production, else SameSite=Lax; Max-Age 7 days (604800000 ms). Cleared with the same attributes.
// Serialised as express's res.cookie/clearCookie would, attribute for attribute.
import type { AccountKind } from '@acct/shared';

export const REFRESH_COOKIE_MAX_AGE_MS = 604_800_000;

export const refreshCookieName = (kind: AccountKind) => (kind === 'admin' ? 'adminRefreshToken' : 'userRefreshToken');

function attributes(production: boolean): string {
  return `HttpOnly${production ? '; Secure; SameSite=None' : '; SameSite=Lax'}`;
}

export function refreshCookie(kind: AccountKind, token: string, production: boolean, now = Date.now()): string {
  const expires = new Date(now + REFRESH_COOKIE_MAX_AGE_MS).toUTCString();
  return `${refreshCookieName(kind)}=${encodeURIComponent(token)}; Max-Age=${REFRESH_COOKIE_MAX_AGE_MS / 1000}; Path=/; Expires=${expires}; ${attributes(production)}`;
}

export function clearedRefreshCookie(kind: AccountKind, production: boolean): string {
  return `${refreshCookieName(kind)}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; ${attributes(production)}`;
}
