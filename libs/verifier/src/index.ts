// Verifies the account service's access tokens in any Node service, with no dependency and no call
// per request: the keys come from the stack's published key set (fetched once, fetched again when a
// token names a key it does not know, at most every `keyRefetchMs`, and in the background once the
// set is `keyMaxAgeMs` old; each fetch replaces the set, so a key the stack retired stops verifying
// here within that time), and ended sessions from the
// stack's revocation feed, followed as server-sent events through the gateway (resumed from the last
// event after a drop), or, for a service that shares the stack's Redis, its own follower of the stream. A token is refused when its signature, algorithm (ES256 only), issuer,
// audience or expiry is wrong, or when its session ended. While the feed has not been heard from for
// `maxStalenessMs` the verifier cannot tell, and says so (`stale`): a service answers 503 then, as
// the stack's own services do, rather than let an ended session through.
import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface AccessClaims {
  /** The account's id. */
  sub: string;
  kind: 'user' | 'admin';
  role: string;
  /** The session's id: what the revocation feed names. */
  sid: string;
  exp: number;
}

export interface VerifierOptions {
  /** The gateway's public URL (https://api.example.com): the key set and the feed are under it. */
  url: string;
  /** The feed's credential (one of the gateway's REVOCATION_FEED_TOKENS); without one, revocations are not followed. */
  feedToken?: string;
  /**
   * For a service that already shares the stack's Redis: its own follower of the revocation stream
   * (`openRevocationFeed` of `@acct/shared/redis`, or anything that answers the same question) in
   * place of the gateway's event stream. A check that cannot be answered (Redis away past the
   * follower's bound) counts as `stale`.
   */
  revocations?: { isRevoked(sessionId: string): boolean | Promise<boolean> };
  /** The stack's JWT_ISSUER and JWT_AUDIENCE (their defaults here are the stack's). */
  issuer?: string;
  audience?: string;
  /** How long without word from the feed before `verify` answers `stale` (5 s). */
  maxStalenessMs?: number;
  /** The least time between two key set fetches caused by unknown `kid`s (30 s). */
  keyRefetchMs?: number;
  /** How old the key set may get before it is fetched again in the background (300 s, the key set's own max-age): a retired key stops verifying within it. */
  keyMaxAgeMs?: number;
  /** Seconds of clock difference allowed on `exp` (5). */
  clockToleranceSeconds?: number;
  fetch?: typeof fetch;
}

export type Verdict =
  | { ok: true; claims: AccessClaims }
  | { ok: false; reason: 'missing' | 'malformed' | 'invalid' | 'expired' | 'revoked' }
  | { ok: false; reason: 'stale' };

interface Jwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  kid?: string;
}

export class AccessTokenVerifier {
  private readonly keys = new Map<string, KeyObject>();
  private keysFetchedAt = 0;
  private keyFetch?: Promise<void>;
  /** Session id → until when (ms) its tokens could still be presented. */
  private readonly ended = new Map<string, number>();
  private lastEventId = '';
  private heardAt = 0;
  private stopped = false;
  private stream?: AbortController;
  private following?: Promise<void>;
  private readonly options: Required<Omit<VerifierOptions, 'feedToken' | 'fetch' | 'revocations'>> & Pick<VerifierOptions, 'feedToken' | 'revocations'>;
  private readonly fetchImpl: typeof fetch;
  private readonly followsFeed: boolean;

  constructor(options: VerifierOptions) {
    this.options = {
      url: options.url.replace(/\/+$/, ''),
      feedToken: options.feedToken,
      revocations: options.revocations,
      issuer: options.issuer ?? 'account-service',
      audience: options.audience ?? 'account-api',
      maxStalenessMs: options.maxStalenessMs ?? 5_000,
      keyRefetchMs: options.keyRefetchMs ?? 30_000,
      keyMaxAgeMs: options.keyMaxAgeMs ?? 300_000,
      clockToleranceSeconds: options.clockToleranceSeconds ?? 5,
    };
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.followsFeed = options.feedToken !== undefined && options.revocations === undefined;
  }

  /** Loads the key set and, with a feed token, the feed's current endings; resolves once both are in. */
  async start(): Promise<this> {
    await this.refreshKeys(true);
    if (this.followsFeed) {
      let ready!: () => void;
      let failed!: (err: Error) => void;
      const first = new Promise<void>((resolve, reject) => ((ready = resolve), (failed = reject)));
      this.following = this.follow(ready, failed);
      await first;
    }
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stream?.abort();
    await this.following?.catch(() => undefined);
  }

  /** Whether the feed was heard from within `maxStalenessMs` (always true without a feed). */
  get fresh(): boolean {
    return !this.followsFeed || Date.now() - this.heardAt <= this.options.maxStalenessMs;
  }

  /** Verifies a token (or an `Authorization` header's value with `Bearer `). */
  async verify(tokenOrHeader: string | undefined): Promise<Verdict> {
    if (!tokenOrHeader) return { ok: false, reason: 'missing' };
    const token = /^bearer +/i.test(tokenOrHeader) ? tokenOrHeader.replace(/^bearer +/i, '').trim() : tokenOrHeader.trim();
    const parts = token.split('.');
    if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return { ok: false, reason: 'malformed' };
    let header: { alg?: unknown; kid?: unknown };
    let payload: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
      payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (header.alg !== 'ES256' || typeof header.kid !== 'string') return { ok: false, reason: 'invalid' };
    // An old set is fetched again behind this check (a failed fetch keeps the set it had).
    if (Date.now() - this.keysFetchedAt >= this.options.keyMaxAgeMs) this.refreshKeys(true).catch(() => undefined);
    let key = this.keys.get(header.kid);
    if (!key) {
      // A key the stack added since: fetched again, at most every keyRefetchMs.
      await this.refreshKeys(false).catch(() => undefined);
      key = this.keys.get(header.kid);
      if (!key) return { ok: false, reason: 'invalid' };
    }
    const jose = Buffer.from(parts[2], 'base64url');
    // One text per token: a signature's high-S twin verifies too, and is refused (the stack signs low-S).
    if (!isLowS(jose)) return { ok: false, reason: 'invalid' };
    const signature = derSignature(jose);
    if (!signature || !verifySignature('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), key, signature)) return { ok: false, reason: 'invalid' };
    const { sub, kind, role, sid, exp, nbf, iss, aud } = payload;
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (iss !== this.options.issuer || !audiences.includes(this.options.audience)) return { ok: false, reason: 'invalid' };
    if (typeof sub !== 'string' || (kind !== 'user' && kind !== 'admin') || typeof role !== 'string' || typeof sid !== 'string' || typeof exp !== 'number') {
      return { ok: false, reason: 'invalid' };
    }
    if (exp + this.options.clockToleranceSeconds < Date.now() / 1000) return { ok: false, reason: 'expired' };
    // Not before: a token dated in the future is refused until then, give or take the same tolerance.
    if (nbf !== undefined && (typeof nbf !== 'number' || nbf - this.options.clockToleranceSeconds > Date.now() / 1000)) return { ok: false, reason: 'invalid' };
    if (this.options.revocations) {
      let revoked: boolean;
      try {
        revoked = await this.options.revocations.isRevoked(sid);
      } catch {
        return { ok: false, reason: 'stale' };
      }
      return revoked ? { ok: false, reason: 'revoked' } : { ok: true, claims: { sub, kind, role, sid, exp } };
    }
    const endedUntil = this.ended.get(sid);
    if (endedUntil !== undefined && endedUntil > Date.now()) return { ok: false, reason: 'revoked' };
    if (!this.fresh) return { ok: false, reason: 'stale' };
    return { ok: true, claims: { sub, kind, role, sid, exp } };
  }

  private refreshKeys(force: boolean): Promise<void> {
    if (!force && Date.now() - this.keysFetchedAt < this.options.keyRefetchMs) return Promise.resolve();
    this.keyFetch ??= (async () => {
      try {
        this.keysFetchedAt = Date.now();
        const res = await this.fetchImpl(`${this.options.url}/.well-known/jwks.json`);
        if (!res.ok) throw new Error(`the key set answered ${res.status}`);
        const set = (await res.json()) as { keys?: Jwk[] };
        const fetched = new Map<string, KeyObject>();
        for (const jwk of set.keys ?? []) {
          if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.kid) continue;
          fetched.set(jwk.kid, createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, format: 'jwk' }));
        }
        // A set with no key it can use is a failed fetch: the set it had stays.
        if (fetched.size === 0) throw new Error('the key set holds no ES256 key');
        // The set as published now: a key it no longer lists (retired by a rotation) stops verifying.
        this.keys.clear();
        for (const [kid, key] of fetched) this.keys.set(kid, key);
      } finally {
        this.keyFetch = undefined;
      }
    })();
    return this.keyFetch;
  }

  /** Follows the feed: reads the event stream, and after a drop opens it again from the last event. */
  private async follow(ready: () => void, failed: (err: Error) => void): Promise<void> {
    let first = true;
    let delay = 250;
    while (!this.stopped) {
      try {
        await this.readStream(() => {
          if (first) ready();
          first = false;
          delay = 250;
        });
      } catch (err) {
        if (first) {
          failed(err as Error);
          return;
        }
      }
      if (this.stopped) return;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5_000);
    }
  }

  private async readStream(onOpen: () => void): Promise<void> {
    this.stream = new AbortController();
    const res = await this.fetchImpl(`${this.options.url}/api/revocations`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${this.options.feedToken}`, ...(this.lastEventId ? { 'last-event-id': this.lastEventId } : {}) },
      signal: this.stream.signal,
    });
    if (!res.ok || !res.body) throw new Error(`the revocation feed answered ${res.status}`);
    const decoder = new TextDecoder();
    let buffer = '';
    let opened = false;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        this.apply(event);
        // The replay ends with the first heartbeat: from then on, this replica knows every ending.
        if (!opened && /^event: heartbeat$/m.test(event)) {
          opened = true;
          onOpen();
        }
      }
    }
    throw new Error('the revocation feed closed');
  }

  private apply(event: string): void {
    let name = 'message';
    let data = '';
    let id: string | undefined;
    for (const line of event.split('\n')) {
      if (line.startsWith('event: ')) name = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
      else if (line.startsWith('id: ')) id = line.slice(4);
    }
    if (name === 'heartbeat') {
      const { freshAsOf } = JSON.parse(data) as { freshAsOf: number };
      // The gateway's own view is as fresh as its follower: a gateway that lost Redis stops vouching.
      this.heardAt = Math.max(this.heardAt, Math.min(Date.now(), freshAsOf));
      this.sweep();
      return;
    }
    if (name === 'revoked') {
      const { sids, until } = JSON.parse(data) as { sids: string[]; until: number };
      for (const sid of sids) if (until > Date.now() && (this.ended.get(sid) ?? 0) < until) this.ended.set(sid, until);
      if (id) this.lastEventId = id;
      this.heardAt = Date.now();
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [sid, until] of this.ended) if (until <= now) this.ended.delete(sid);
  }
}

/** The answer a refused request gets, as the stack's own services answer it. */
export function refusal(verdict: Exclude<Verdict, { ok: true }>): { status: number; body: { success: false; message: string; code: string } } {
  if (verdict.reason === 'stale') return { status: 503, body: { success: false, message: 'Service temporarily unavailable', code: 'service_unavailable' } };
  if (verdict.reason === 'revoked') return { status: 401, body: { success: false, message: 'Session has ended', code: 'session_revoked' } };
  return { status: 401, body: { success: false, message: 'Unauthorized', code: 'unauthorized' } };
}

type Next = (err?: unknown) => void;
type Request = IncomingMessage & { auth?: AccessClaims };

/**
 * Express (or Connect) middleware: a request with a valid token of a live session goes on with
 * `req.auth` set; any other is answered 401 (or 503 while the feed cannot tell) in the stack's
 * envelope. `kind` limits it to users or admins (403 otherwise).
 */
export function requireAccessToken(verifier: AccessTokenVerifier, options: { kind?: 'user' | 'admin' } = {}) {
  return (req: Request, res: ServerResponse, next: Next): void => {
    verifier.verify(req.headers.authorization).then(
      (verdict) => {
        if (!verdict.ok) return send(res, refusal(verdict));
        if (options.kind && verdict.claims.kind !== options.kind) return send(res, { status: 403, body: { success: false, message: 'Forbidden', code: 'forbidden' } });
        req.auth = verdict.claims;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

function send(res: ServerResponse, answer: { status: number; body: unknown }): void {
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

const P256_HALF_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n >> 1n;

/** Whether a JOSE ES256 signature's S is at most half the curve's order (its one accepted form; @acct/shared's ecdsa-low-s.ts says why). */
function isLowS(jose: Buffer): boolean {
  return jose.length === 64 && BigInt(`0x${jose.subarray(32).toString('hex')}`) <= P256_HALF_ORDER;
}

/**
 * An ES256 signature as a JWT carries it (r and s, 32 bytes each) in DER, the form `verify` takes
 * with a bare key object. Handing `verify` the JWT's form needs `{ key, dsaEncoding }`, and on Node
 * 24 an options object in place of a key costs two internal throws and catches a call (isKeyObject,
 * isCryptoKey): a check took 107 µs that way and takes 71 this way (bench/RESULTS.md, "Refresh on
 * Node 24").
 */
function derSignature(jose: Buffer): Buffer | undefined {
  if (jose.length !== 64) return undefined;
  const integer = (half: Buffer) => {
    let start = 0;
    while (start < half.length - 1 && half[start] === 0) start++;
    const bytes = half.subarray(start);
    // A set high bit would read as negative: a zero byte keeps it positive.
    const pad = bytes[0] & 0x80 ? 1 : 0;
    return Buffer.concat([Buffer.from(pad ? [0x02, bytes.length + 1, 0] : [0x02, bytes.length]), bytes]);
  };
  const r = integer(jose.subarray(0, 32));
  const s = integer(jose.subarray(32));
  // At most 70 bytes in all: every length fits DER's one-byte short form.
  return Buffer.concat([Buffer.from([0x30, r.length + s.length]), r, s]);
}
