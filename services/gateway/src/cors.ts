// CORS for browser apps on their own origin (an admin panel at https://admin.example.com): only the
// origins in CORS_ORIGINS, with credentials (the refresh cookie), and only for routes that exist.
// A preflight for anything else, and every request of an unlisted origin, gets no CORS header: the
// browser then refuses it, and an unknown route keeps the spec's 404.
import type http from 'node:http';
import type { RouteMatcher } from '@acct/shared/routes';

/**
 * Request headers a browser app may send; anything else in a preflight is refused. The W3C trace
 * headers are accepted because browser tracing SDKs add them; the gateway does not trust them (it
 * starts its own trace and ignores outside baggage).
 */
const ALLOWED_HEADERS = new Set(['authorization', 'content-type', 'x-request-id', 'accept', 'accept-language', 'if-none-match', 'traceparent', 'tracestate', 'baggage']);
/** Response headers a browser app may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = 'Retry-After, X-Request-Id, ETag';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export class Cors {
  private readonly origins: Set<string>;

  constructor(
    origins: string[],
    private readonly matcher: RouteMatcher,
  ) {
    this.origins = new Set(origins);
  }

  get enabled(): boolean {
    return this.origins.size > 0;
  }

  /** The listed origin of the request, or undefined. */
  private allowedOrigin(req: http.IncomingMessage): string | undefined {
    const origin = req.headers.origin;
    return typeof origin === 'string' && this.origins.has(origin) ? origin : undefined;
  }

  /** Headers for an actual request to an existing route, as a flat [name, value, …] list. */
  responseHeaders(req: http.IncomingMessage): string[] {
    if (!this.enabled) return [];
    const origin = this.allowedOrigin(req);
    if (!origin) return ['Vary', 'Origin'];
    return ['Access-Control-Allow-Origin', origin, 'Access-Control-Allow-Credentials', 'true', 'Access-Control-Expose-Headers', EXPOSED_HEADERS, 'Vary', 'Origin'];
  }

  /**
   * A preflight (OPTIONS with Origin and Access-Control-Request-Method): the answer headers when it
   * may go ahead (a listed origin, a route that exists for that method and path, and only headers an
   * app needs), else why not, for the log; undefined for a request that is no preflight. A refused
   * one is answered as any unknown route is.
   */
  preflight(req: http.IncomingMessage, path: string): { headers: string[] } | { refused: string } | undefined {
    const method = req.headers['access-control-request-method'];
    if (req.method !== 'OPTIONS' || typeof req.headers.origin !== 'string' || typeof method !== 'string') return undefined;
    if (!this.enabled) return { refused: 'CORS_ORIGINS is empty: no origin may call from a browser page' };
    const origin = this.allowedOrigin(req);
    if (!origin) return { refused: `origin ${req.headers.origin} is not listed in CORS_ORIGINS` };
    if (!this.matcher.match(method.toUpperCase(), path)) return { refused: `no route answers ${method.toUpperCase()} ${path}` };
    const requested = String(req.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
    const refusedHeaders = requested.filter((h) => !ALLOWED_HEADERS.has(h));
    if (refusedHeaders.length > 0) return { refused: `request header ${refusedHeaders.join(', ')} is not allowed (allowed: ${[...ALLOWED_HEADERS].join(', ')})` };
    return { headers: [
      'Access-Control-Allow-Origin', origin,
      'Access-Control-Allow-Credentials', 'true',
      'Access-Control-Allow-Methods', this.matcher.methodsFor(path).join(', '),
      ...(requested.length ? ['Access-Control-Allow-Headers', requested.join(', ')] : []),
      'Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS,
      'Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    ] };
  }
}
