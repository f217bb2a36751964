// Cookie routes (refresh, logout) change state with nothing but the browser's cookie, so a form on
// any site could post to them (in production the cookie is SameSite=None). A browser names the page
// that sent a request: `Origin` (always on a cross-origin POST), else `Sec-Fetch-Site`. A request
// from a page that is neither the API's own origin nor a listed one is refused; clients that are no
// browser (curl, the desktop app) send neither header and are unaffected.
import type http from 'node:http';

export class CrossSiteGuard {
  private readonly allowed: Set<string>;

  constructor(origins: string[]) {
    this.allowed = new Set(origins);
  }

  /** Whether a cookie route may serve this request. */
  allows(req: http.IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (typeof origin === 'string') return this.allowed.has(origin) || isOwnOrigin(origin, req.headers.host);
    return req.headers['sec-fetch-site'] !== 'cross-site';
  }
}

/** The page's origin is the API's own: the same host (and port) the request was sent to. */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (!host || origin === 'null') return false;
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}
