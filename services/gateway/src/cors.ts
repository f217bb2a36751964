// CORS for browser apps on their own origin (an admin panel at https://admin.example.com): only the
// origins in CORS_ORIGINS, with credentials (the refresh cookie), and only for routes that exist.
// A preflight for anything else, and every request of an unlisted origin, gets no CORS header: the
// browser then refuses it, and an unknown route keeps the spec's 404.
import type http from 'node:http';
import type { RouteMatcher } from './route-matcher';

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
   * The answer headers to a preflight (OPTIONS with Origin and Access-Control-Request-Method) that
   * may go ahead: a listed origin, a route that exists for that method and path, and only headers
   * an app needs. Undefined for anything else, which the caller answers as it answers any unknown route.
   */
  preflight(req: http.IncomingMessage, path: string): string[] | undefined {
    if (!this.enabled || req.method !== 'OPTIONS') return undefined;
    const origin = this.allowedOrigin(req);
    const method = req.headers['access-control-request-method'];
    if (!origin || typeof method !== 'string' || !this.matcher.match(method.toUpperCase(), path)) return undefined;
    const requested = String(req.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
    if (requested.some((h) => !ALLOWED_HEADERS.has(h))) return undefined;
    return [
      'Access-Control-Allow-Origin', origin,
      'Access-Control-Allow-Credentials', 'true',
      'Access-Control-Allow-Methods', this.matcher.methodsFor(path).join(', '),
      ...(requested.length ? ['Access-Control-Allow-Headers', requested.join(', ')] : []),
      'Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS,
      'Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    ];
  }
}
