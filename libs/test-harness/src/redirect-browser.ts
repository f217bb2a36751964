// A browser as far as a redirect flow needs one: a cookie jar per host (Path, Max-Age and Expires
// honoured), redirects followed by hand, HTML forms filled and posted, and public host names mapped
// to the loopback ports that serve them (as a hosts file would). It stops at the first URL on a host
// it does not serve (the app's page), which it answers without fetching.
interface StoredCookie {
  value: string;
  path: string;
  expires?: number;
}

export interface Landing {
  /** The URL the flow ended at (an app page, not fetched). */
  url: URL;
  /** Every URL fetched on the way, in order. */
  visited: string[];
}

export class RedirectBrowser {
  private readonly jar = new Map<string, Map<string, StoredCookie>>();

  constructor(
    /** Hosts this browser serves (host:port as in URLs) and the origin that answers each; unmapped served hosts answer themselves. */
    private readonly hosts: Record<string, string>,
  ) {}

  /** One request, with the jar's cookies; the answer's cookies kept. */
  async fetch(url: string | URL, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
    const target = new URL(url);
    const origin = this.hosts[target.host];
    if (origin === undefined) throw new Error(`not a host this browser serves: ${target.host}`);
    const actual = new URL(target.pathname + target.search, origin || target.origin);
    const cookie = this.cookieHeader(target);
    const res = await fetch(actual, {
      method: init.method ?? 'GET',
      body: init.body,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(init.headers ?? {}) },
    });
    for (const line of res.headers.getSetCookie()) this.store(target, line);
    return res;
  }

  /**
   * Follows redirects from `start`, filling each HTML form it meets with `fields` (its own hidden
   * inputs kept), until a redirect leaves the hosts it serves, or reaches a URL `stopBefore` picks
   * (answered unfetched, as the landing).
   */
  async follow(start: string | URL, fields: Record<string, string> = {}, stopBefore?: (url: URL) => boolean): Promise<Landing> {
    const visited: string[] = [];
    let url = new URL(start);
    let init: { method?: string; body?: string; headers?: Record<string, string> } = {};
    const maxSteps = 20;
    for (let step = 0; step < maxSteps; step++) {
      if (!(url.host in this.hosts) || (step > 0 && stopBefore?.(url))) return { url, visited };
      visited.push(url.href);
      const res = await this.fetch(url, init);
      init = {};
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.arrayBuffer();
        url = new URL(location, url);
        continue;
      }
      const text = await res.text();
      const form = /<form[^>]*action="([^"]*)"[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/i.exec(text);
      if (res.status !== 200 || !form) throw new Error(`flow stopped at ${url.href}: ${res.status} ${text.slice(0, 300)}`);
      const body = new URLSearchParams();
      for (const input of form[2].matchAll(/<input[^>]*name="([^"]+)"[^>]*>/gi)) {
        const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? '';
        body.set(input[1], fields[input[1]] ?? value);
      }
      url = new URL(form[1].replace(/&amp;/g, '&'), url);
      init = { method: 'POST', body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    }
    throw new Error(`no landing after ${maxSteps} steps: ${visited.join(' -> ')}`);
  }

  cookie(host: string, name: string): string | undefined {
    return this.jar.get(host)?.get(name)?.value;
  }

  forget(host: string, name: string): void {
    this.jar.get(host)?.delete(name);
  }

  private cookieHeader(url: URL): string {
    const now = Date.now();
    const cookies = this.jar.get(url.host);
    if (!cookies) return '';
    const sent: string[] = [];
    for (const [name, c] of cookies) {
      if (c.expires !== undefined && c.expires <= now) continue;
      if (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)) sent.push(`${name}=${c.value}`);
    }
    return sent.join('; ');
  }

  private store(url: URL, line: string): void {
    const [pair, ...attributes] = line.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const cookie: StoredCookie = { value: pair.slice(eq + 1), path: '/' };
    for (const attribute of attributes) {
      const [key, value = ''] = attribute.split('=');
      const k = key.toLowerCase();
      if (k === 'path') cookie.path = value;
      else if (k === 'max-age') cookie.expires = Date.now() + Number(value) * 1000;
      else if (k === 'expires' && cookie.expires === undefined) cookie.expires = Date.parse(value);
    }
    const cookies = this.jar.get(url.host) ?? new Map<string, StoredCookie>();
    this.jar.set(url.host, cookies);
    if (cookie.expires !== undefined && cookie.expires <= Date.now()) cookies.delete(name);
    else cookies.set(name, cookie);
  }
}
