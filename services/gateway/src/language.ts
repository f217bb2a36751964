// A request's language: the one its browser chose on a page's switch (the cookie), else the best of
// its Accept-Language among those offered, else English. The pages are served in it, and the
// services are told it (a mail the request causes speaks it, unless the account chose its own).
import type http from 'node:http';
import { LANGUAGE_COOKIE, type Languages } from '@acct/shared/languages';
import { readCookie } from './refresh-cookie-bridge';

export function requestLanguage(languages: Languages, req: http.IncomingMessage): string {
  const acceptLanguage = req.headers['accept-language'];
  return languages.negotiate(Array.isArray(acceptLanguage) ? acceptLanguage.join(',') : acceptLanguage, readCookie(req.headers.cookie, LANGUAGE_COOKIE));
}
