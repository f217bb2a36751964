// The allow-list as one table built at start: exact paths in a map, parameterised ones as regular
// expressions; case-insensitive, with an optional trailing slash, as express routes match.
import type { RouteSpec } from '@acct/shared/routes';

export class RouteMatcher {
  private readonly exact = new Map<string, RouteSpec>();
  private readonly patterns: Array<{ route: RouteSpec; regex: RegExp }> = [];

  constructor(routes: readonly RouteSpec[]) {
    for (const route of routes) {
      const method = route.method.toUpperCase();
      if (route.path.includes(':')) {
        const source = route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+');
        this.patterns.push({ route, regex: new RegExp(`^${source}/?$`, 'i') });
      } else {
        this.exact.set(`${method} ${route.path.toLowerCase()}`, route);
      }
    }
  }

  /** The methods some route answers on this path (for a preflight's Allow-Methods). */
  methodsFor(path: string): string[] {
    return ['GET', 'POST', 'PUT', 'DELETE'].filter((method) => this.match(method, path));
  }

  /** The route for a method and path (HEAD matches GET routes), or undefined. */
  match(method: string, path: string): RouteSpec | undefined {
    const m = method === 'HEAD' ? 'GET' : method;
    const normalized = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();
    const exact = this.exact.get(`${m} ${normalized}`);
    if (exact) return exact;
    return this.patterns.find((p) => p.route.method.toUpperCase() === m && p.regex.test(path))?.route;
  }
}
