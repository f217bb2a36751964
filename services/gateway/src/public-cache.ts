// The gateway as a small shared cache (RFC 9111) for the answers a service gives on a route the
// route table marks `caching: 'public'` (today the desktop version check, which every desktop client
// polls). A 200 to a GET whose Cache-Control says `public` with a positive max-age, with no
// Set-Cookie, no Vary and a body of at most 16 KiB, is answered from memory (256 answers at most)
// for PUBLIC_CACHE_MS at most, never past its own freshness, with the Age it has been held; the
// service is not asked. Otherwise each answer costs a proxy hop several times what the service
// spends on it (bench/RESULTS.md, "The version check from the gateway's memory").
//
// Each replica holds its own copy. A change the gateway forwards (a release published or withdrawn:
// the route table's `evictsCached`) empties it once the service accepts the change, so that replica
// answers the change at once; the others within PUBLIC_CACHE_MS, on top of desktop's own
// RELEASE_CACHE_MS. A request that asks for a fresh answer (`no-cache`, `max-age=0`) goes to the
// service, and its answer replaces the one held.
import type http from 'node:http';

/** An answer held: its headers as a flat [name, value, …] list (no Age), its body, its ETag. */
export interface HeldAnswer {
  headers: string[];
  etag?: string;
  /**
   * Its body's bytes as a latin1 string (exact for any bytes): Node writes a string body together
   * with the head in one write, a Buffer as a second chunk of a writev (bench/RESULTS.md, "The
   * gateway's cheapest answers, trimmed").
   */
  body: string;
  /** When it was stored, less the Age the service gave it (ms). */
  bornAt: number;
  freshUntil: number;
}

/** Where a fetched answer may go once read: the URL it answers, and the cache's generation when it was asked. */
export interface Fill {
  url: string;
  generation: number;
}

const MAX_ENTRIES = 256;
const MAX_BODY_BYTES = 16 * 1024;
/** Headers kept with an answer: what describes the body and its caching (never a cookie). */
const HELD_HEADERS = ['content-type', 'content-length', 'cache-control', 'etag', 'last-modified', 'expires'];

export class PublicCache {
  private readonly held = new Map<string, HeldAnswer>();
  /** Moves on at every eviction: an answer asked for before one is not stored after it. */
  private generation = 0;

  constructor(
    /** The longest an answer is held (PUBLIC_CACHE_MS); 0 holds none. */
    private readonly holdMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A fresh held answer for this GET or HEAD, or, when the request must go to the service, where its
   * answer may be stored (a GET only: a HEAD's answer has no body).
   */
  lookup(method: string, url: string, headers: http.IncomingHttpHeaders): { hit: HeldAnswer } | { fill?: Fill } {
    if (this.holdMs <= 0 || (method !== 'GET' && method !== 'HEAD')) return {};
    const fill = method === 'GET' ? { url, generation: this.generation } : undefined;
    if (wantsFresh(headers)) return { fill };
    const answer = this.held.get(url);
    if (answer && this.now() < answer.freshUntil) return { hit: answer };
    if (answer) this.held.delete(url);
    return { fill };
  }

  /**
   * Writes a held answer after `headers` (the gateway's own, a list made for this answer, which it
   * adds to): 304 to a client that has it, else 200 (no body to HEAD). Returns the status sent.
   */
  answer(req: http.IncomingMessage, res: http.ServerResponse, answer: HeldAnswer, headers: string[]): number {
    const age = String(Math.max(0, Math.floor((this.now() - answer.bornAt) / 1000)));
    if (answer.etag && matches(req.headers['if-none-match'], answer.etag)) {
      for (let i = 0; i < answer.headers.length; i += 2) {
        if (answer.headers[i] !== 'content-type' && answer.headers[i] !== 'content-length') headers.push(answer.headers[i], answer.headers[i + 1]);
      }
      headers.push('Age', age);
      res.writeHead(304, headers);
      res.end();
      return 304;
    }
    headers.push(...answer.headers, 'Age', age);
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    else res.end(answer.body, 'latin1');
    return 200;
  }

  /**
   * Reads a service's answer as it is piped to the client and stores it if it may be held; the
   * client's answer is not held back.
   */
  keep(fill: Fill, status: number, headers: http.IncomingHttpHeaders, body: NodeJS.ReadableStream): void {
    const lifetimeMs = this.lifetime(status, headers);
    if (lifetimeMs <= 0) return;
    const declared = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
    if (declared !== undefined && !(declared <= MAX_BODY_BYTES)) return;
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) body.off('data', onData).off('end', onEnd);
      else chunks.push(chunk);
    };
    const onEnd = () => {
      if (fill.generation !== this.generation || (declared !== undefined && size !== declared)) return;
      const kept: string[] = [];
      for (const name of HELD_HEADERS) {
        const value = headers[name];
        if (typeof value === 'string') kept.push(name, value);
      }
      const bornAt = this.now() - ageOf(headers) * 1000;
      if (this.held.size >= MAX_ENTRIES && !this.held.has(fill.url)) this.held.delete(this.held.keys().next().value as string);
      this.held.set(fill.url, { headers: kept, etag: typeof headers.etag === 'string' ? headers.etag : undefined, body: Buffer.concat(chunks, size).toString('latin1'), bornAt, freshUntil: this.now() + lifetimeMs });
    };
    body.on('data', onData).once('end', onEnd);
  }

  /** Drops every held answer: a change was accepted that may make any of them stale. */
  evict(): void {
    this.generation++;
    this.held.clear();
  }

  /** How long an answer may be held (ms): 0 unless a 200 that says `public` with a max-age and sets no cookie. */
  private lifetime(status: number, headers: http.IncomingHttpHeaders): number {
    if (status !== 200 || headers['set-cookie'] !== undefined || headers.vary !== undefined) return 0;
    const directives = cacheControl(headers['cache-control']);
    if (!directives.has('public') || directives.has('private') || directives.has('no-store') || directives.has('no-cache')) return 0;
    const maxAge = Number(directives.get('s-maxage') ?? directives.get('max-age'));
    if (!Number.isInteger(maxAge) || maxAge <= 0) return 0;
    return Math.min(this.holdMs, (maxAge - ageOf(headers)) * 1000);
  }
}

/** A Cache-Control header's directives, names in lower case, values unquoted. */
function cacheControl(header: string | string[] | undefined): Map<string, string | undefined> {
  const directives = new Map<string, string | undefined>();
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [name, value] = part.split('=');
    if (name.trim()) directives.set(name.trim().toLowerCase(), value?.trim().replace(/^"|"$/g, ''));
  }
  return directives;
}

/** The client asks for an answer no cache may give without asking the service (RFC 9111 §5.2.1). */
function wantsFresh(headers: http.IncomingHttpHeaders): boolean {
  if (headers['cache-control'] === undefined) return headers.pragma === 'no-cache';
  const directives = cacheControl(headers['cache-control']);
  return directives.has('no-cache') || directives.has('no-store') || directives.get('max-age') === '0';
}

const ageOf = (headers: http.IncomingHttpHeaders) => {
  const age = Number(headers.age ?? 0);
  return Number.isFinite(age) && age > 0 ? age : 0;
};

/** If-None-Match against an ETag: `*`, or one of a list, weakly compared (RFC 9110 §13.1.2). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === bare;
  });
}
