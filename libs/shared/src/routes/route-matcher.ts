// A route table as one lookup built at start: exact paths in a map, parameterised ones as regular
// expressions; case-insensitive, with an optional trailing slash, as express routes match. The
// gateway's allow-list matches with it, and auth dispatches its operations with it instead of walking
// an Express router stack.
import type { RouteSpec } from './spec';

export interface RouteMatch<R extends RouteSpec = RouteSpec> {
  route: R;
  /** The path's parameters by name (`:userId` → `userId`), decoded. */
  params: Record<string, string>;
}

export class RouteMatcher<R extends RouteSpec = RouteSpec> {
  /** Exact paths (lower case) by method: no key is built per request. */
  private readonly exact = new Map<string, Map<string, R>>();
  private readonly patterns: Array<{ route: R; method: string; regex: RegExp; names: string[] }> = [];

  constructor(routes: readonly R[]) {
    for (const route of routes) {
      const method = route.method.toUpperCase();
      if (route.path.includes(':')) {
        const names = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]);
        const source = route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '([^/]+)');
        this.patterns.push({ route, method, regex: new RegExp(`^${source}/?$`, 'i'), names });
      } else {
        let paths = this.exact.get(method);
        if (!paths) this.exact.set(method, (paths = new Map()));
        paths.set(route.path.toLowerCase(), route);
      }
    }
  }

  /** The methods some route answers on this path (for a preflight's Allow-Methods). */
  methodsFor(path: string): string[] {
    return ['GET', 'POST', 'PUT', 'DELETE'].filter((method) => this.match(method, path));
  }

  /** The route for a method and path (HEAD matches GET routes), or undefined. */
  match(method: string, path: string): R | undefined {
    return this.exactRoute(method, path) ?? this.parameterised(method, path)?.route;
  }

  /** The route and its path's parameters, decoded; undefined when none matches, or a parameter is not valid percent-encoding. */
  find(method: string, path: string): RouteMatch<R> | undefined {
    const exact = this.exactRoute(method, path);
    if (exact) return { route: exact, params: {} };
    const found = this.parameterised(method, path);
    if (!found) return undefined;
    try {
      return { route: found.route, params: Object.fromEntries(found.names.map((name, i) => [name, decodeURIComponent(found.values[i])])) };
    } catch {
      return undefined;
    }
  }

  /** The route whose path is exactly this one, in any case and with or without a trailing slash. */
  private exactRoute(method: string, path: string): R | undefined {
    const paths = this.exact.get(method === 'HEAD' ? 'GET' : method);
    return paths?.get((path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase());
  }

  /** The first parameterised route the path matches, with its parameters' raw values. */
  private parameterised(method: string, path: string): { route: R; names: string[]; values: string[] } | undefined {
    const m = method === 'HEAD' ? 'GET' : method;
    for (const p of this.patterns) {
      if (p.method !== m) continue;
      const found = p.regex.exec(path);
      if (found) return { route: p.route, names: p.names, values: found.slice(1) };
    }
    return undefined;
  }
}
