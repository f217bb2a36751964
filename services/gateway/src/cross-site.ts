// Cookie routes (refresh, logout) change state with nothing but the browser's cookie, so a form on
// any site could post to them (in production the cookie is SameSite=None). A browser names the page
// that sent a request: `Origin` (always on a cross-origin POST), else `Sec-Fetch-Site`. A request
// from a page that is neither the API's own origin nor a listed one is refused; clients that are no
// browser (curl, the desktop app) send neither header and are unaffected. Origins are compared
// whole, scheme included: a plain-http page of the API's own host (anyone on the network can serve
// one) is another origin than the https API. The API's own origin is PUBLIC_URL's when it is set;
// else the request's host, with the scheme of the connection, or the one a trusted proxy forwarded.
import type http from 'node:http';
import type { TLSSocket } from 'node:tls';

/** Whether the proxy at an address (the connection's peer: hop 0) is trusted (TRUST_PROXY). */
type Trust = (address: string, hop: number) => boolean;

export class CrossSiteGuard {
  private readonly allowed: Set<string>;
  private readonly publicOrigin?: string;

  constructor(
    origins: string[],
    options: { publicUrl?: string; trust?: Trust } = {},
  ) {
    this.allowed = new Set(origins);
    this.publicOrigin = options.publicUrl ? new URL(options.publicUrl).origin : undefined;
    this.trust = options.trust;
  }

  private readonly trust?: Trust;

  /** Whether a cookie route may serve this request. */
  allows(req: http.IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (typeof origin === 'string') return this.allowed.has(origin) || this.isOwnOrigin(origin, req);
    return req.headers['sec-fetch-site'] !== 'cross-site';
  }

  /** The page's origin is the API's own: the same scheme, host and port the browser reached the API at. */
  private isOwnOrigin(origin: string, req: http.IncomingMessage): boolean {
    if (origin === 'null') return false;
    try {
      const page = new URL(origin).origin;
      if (this.publicOrigin) return page === this.publicOrigin;
      const host = req.headers.host;
      return host !== undefined && page === new URL(`${schemeOf(req, this.trust)}://${host}`).origin;
    } catch {
      return false;
    }
  }
}

/** The scheme the browser used: the connection's, or `X-Forwarded-Proto` from a proxy TRUST_PROXY trusts. */
function schemeOf(req: http.IncomingMessage, trust: Trust | undefined): 'http' | 'https' {
  const own = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const forwarded = req.headers['x-forwarded-proto'];
  if (!trust || typeof forwarded !== 'string' || !trust(req.socket.remoteAddress ?? '', 0)) return own;
  const first = forwarded.split(',')[0].trim().toLowerCase();
  return first === 'https' || first === 'http' ? first : own;
}
