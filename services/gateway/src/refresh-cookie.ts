// The refresh cookies, with the spec's attributes: HttpOnly; Secure and SameSite=None only in
// production, else SameSite=Lax; Max-Age 7 days. Cleared with the same attributes.
import type { CookieOptions, Response } from 'express';
import type { AccountKind } from '@acct/shared';

export const REFRESH_COOKIE_MAX_AGE_MS = 604_800_000;

export const refreshCookieName = (kind: AccountKind) => (kind === 'admin' ? 'adminRefreshToken' : 'userRefreshToken');

export function refreshCookieOptions(production: boolean): CookieOptions {
  return { httpOnly: true, secure: production, sameSite: production ? 'none' : 'lax', maxAge: REFRESH_COOKIE_MAX_AGE_MS, path: '/' };
}

export function setRefreshCookie(res: Response, kind: AccountKind, token: string, production: boolean): void {
  res.cookie(refreshCookieName(kind), token, refreshCookieOptions(production));
}

export function clearRefreshCookie(res: Response, kind: AccountKind, production: boolean): void {
  res.clearCookie(refreshCookieName(kind), refreshCookieOptions(production));
}
