// The revocation feed: how every replica that accepts access tokens (gateway, auth, desktop, any
// later service) learns within milliseconds that a session ended, and decides from its own memory,
// with no network call on the request path.
//
// One Redis stream holds an entry per ending (one or several session ids, and until when their
// access tokens could still be presented). Auth appends to it before it deletes a session; every
// replica loads what the stream holds at start (before it reports ready), then follows it with a
// blocking XREAD from the last entry it applied, so a dropped connection resumes where it stopped
// and loses nothing. The stream is trimmed to the longest access token's lifetime, so neither Redis
// nor a replica keeps an entry past the last token it could stop.
//
// When the follower has not heard from Redis for longer than `maxStalenessMs`, a replica no longer
// trusts its memory: the next check reads what it missed (one read shared by every request waiting,
// which keeps it fresh for another `maxStalenessMs`) and, if that read fails too, refuses (the caller
// answers 503) rather than let a revoked token through.
import { closeRedis, type RedisClient as Redis } from './topology';
import type { Logger } from 'pino';
import { Gauge, Counter, type Registry } from '../metrics';
import type { RevocationCheck } from '../session-liveness';

export interface RevocationFeedOptions {
  /** The stream's key, the same for every service (no key prefix is applied to it). */
  stream: string;
  /** How old the replica's view may get before a check reads the stream itself. */
  maxStalenessMs: number;
  /**
   * Whether to keep the entries themselves (their stream ids, sessions and end) while they can
   * matter, for others to replay and follow (the gateway's event stream for other back ends).
   */
  keepEntries?: boolean;
}

/** One ending as the stream holds it: its id (to resume after), the sessions, and until when their tokens could be presented. */
export interface RevocationEntry {
  id: string;
  sids: string[];
  until: number;
}

export interface RevocationPublishOptions {
  /** How long an access token lives at most, plus clock skew between hosts: an entry's lifetime. */
  retentionMs: number;
}


const PAGE = 1000;
const TICK_MS = 100;

export class RevocationFeed implements RevocationCheck {
  /**
   * Session id → until when its tokens could still be presented, in tenths of a second after `base`
   * (a small integer V8 stores inline, for 3 years of uptime). Insertion order is expiry order.
   */
  private readonly ended = new Map<string, number>();
  private readonly base: number;
  private lastId = '0-0';
  /** When the last read that succeeded was sent: the replica knows every ending before it. */
  private freshAsOf = 0;
  private stale = false;
  private halted = false;
  private following?: Promise<void>;
  private catchingUp?: Promise<void>;
  private sweepTimer?: NodeJS.Timeout;
  private readonly now = Date.now;
  /** How long one blocking read waits for news: a third of the bound, so two reads may fail before it passes. */
  private readonly blockMs: number;
  private fallbackReads?: Counter;
  /** With `keepEntries`: the entries still in force, in stream order, and who follows new ones. */
  private readonly entries: RevocationEntry[] = [];
  private readonly listeners = new Set<(entry: RevocationEntry) => void>();

  /**
   * `follower` is a connection of its own (a blocking read holds it); `reader` serves the loads and
   * the catch-up reads, and the writes when this replica publishes (auth).
   */
  constructor(
    private readonly follower: Redis,
    private readonly reader: Redis,
    private readonly logger: Logger,
    private readonly options: RevocationFeedOptions,
  ) {
    this.base = this.now();
    this.blockMs = Math.max(50, Math.min(500, Math.floor(options.maxStalenessMs / 3)));
  }

  /** Loads what the stream holds (the replica is not ready before), then follows it. */
  async start(): Promise<this> {
    await this.catchUp();
    this.halted = false;
    this.following = this.follow();
    this.sweepTimer = setInterval(() => this.sweep(), 5_000);
    this.sweepTimer.unref();
    return this;
  }

  async stop(): Promise<void> {
    this.halted = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    // The blocking read ends by itself within blockMs.
    await this.following;
  }

  /** Stops following, then closes both connections. */
  async close(): Promise<void> {
    await this.stop();
    // A connection that is down would refuse QUIT and go on reconnecting: it is cut instead.
    await Promise.all([this.follower, this.reader].map(closeRedis));
  }

  isRevoked(sessionId: string): boolean | Promise<boolean> {
    if (this.fresh) return this.holds(sessionId);
    this.noteStale();
    this.fallbackReads?.inc();
    return this.catchUp().then(() => this.holds(sessionId));
  }

  /**
   * Records that sessions ended: appended to the stream (trimmed to the retention) and applied here
   * at once. Throws when Redis does not take it; the caller then must not report the sessions ended.
   */
  async publish(sessionIds: string[], options: RevocationPublishOptions): Promise<void> {
    if (sessionIds.length === 0) return;
    const now = this.now();
    const until = now + options.retentionMs;
    await this.reader.xadd(this.options.stream, 'MINID', '~', String(now - options.retentionMs), '*', 'sids', sessionIds.join(' '), 'until', String(until));
    // Not moving lastId: entries before this one may still be on their way to the follower.
    for (const id of sessionIds) this.remember(id, until);
  }

  /** When the last read that reached the store was sent (ms): every ending before it is known here. */
  get freshAsOfMs(): number {
    return this.freshAsOf;
  }

  /** The kept entries after `id` (all of them for an id older than the oldest kept, or none given), in stream order. */
  entriesAfter(id?: string): RevocationEntry[] {
    if (!id) return [...this.entries];
    return this.entries.filter((entry) => compareIds(entry.id, id) > 0);
  }

  /** Calls `listener` with each entry the follower applies from now on; answers the unsubscribe. */
  subscribe(listener: (entry: RevocationEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** How many endings the replica holds, how far behind it may be, and how often it read the store itself. */
  registerMetrics(registry: Registry): void {
    const tracked = () => this.ended.size;
    const age = () => (this.now() - this.freshAsOf) / 1000;
    registry.registerMetric(
      new Gauge({
        name: 'revocations_tracked',
        help: 'Ended sessions whose access tokens this replica refuses from memory',
        registers: [],
        collect() {
          this.set(tracked());
        },
      }),
    );
    registry.registerMetric(
      new Gauge({
        name: 'revocation_feed_age_seconds',
        help: 'Time since the replica last heard from the revocation feed (past the bound, checks read the store)',
        registers: [],
        collect() {
          this.set(age());
        },
      }),
    );
    this.fallbackReads = new Counter({ name: 'revocation_fallback_reads_total', help: 'Checks that found the feed stale and read the stream themselves', registers: [registry] });
  }

  /** Whether the replica's view is within the bound now (for tests and the health page). */
  get fresh(): boolean {
    return this.now() - this.freshAsOf <= this.options.maxStalenessMs;
  }

  get size(): number {
    return this.ended.size;
  }

  private holds(sessionId: string): boolean {
    const until = this.ended.get(sessionId);
    return until !== undefined && until * TICK_MS + this.base > this.now();
  }

  private remember(sessionId: string, untilMs: number): void {
    if (untilMs <= this.now()) return;
    const until = Math.ceil((untilMs - this.base) / TICK_MS);
    const known = this.ended.get(sessionId);
    // The publisher's own entry, coming back through the feed, changes nothing.
    if (known !== undefined && known >= until) return;
    // Re-inserted at the end, so the map stays in expiry order for the sweep.
    this.ended.delete(sessionId);
    this.ended.set(sessionId, until);
  }

  /** Drops the entries whose tokens have all expired: from the front, up to the first live one. */
  sweep(): void {
    const nowTicks = (this.now() - this.base) / TICK_MS;
    for (const [id, until] of this.ended) {
      if (until > nowTicks) break;
      this.ended.delete(id);
    }
    // Kept entries end in stream order too (one retention for every entry).
    let past = 0;
    while (past < this.entries.length && this.entries[past].until <= this.now()) past++;
    if (past) this.entries.splice(0, past);
  }

  /** Reads everything after the last applied entry, page by page; one read shared by concurrent callers. */
  private catchUp(): Promise<void> {
    this.catchingUp ??= (async () => {
      for (;;) {
        // The last, short page was sent after every ending before it was in the stream.
        const sent = this.now();
        const page = (await this.reader.xrange(this.options.stream, `(${this.lastId}`, '+', 'COUNT', PAGE)) as StreamEntry[];
        this.apply(page);
        if (page.length < PAGE) {
          this.markFresh(sent);
          break;
        }
      }
    })().finally(() => {
      this.catchingUp = undefined;
    });
    return this.catchingUp;
  }

  private async follow(): Promise<void> {
    while (!this.halted) {
      const sent = this.now();
      try {
        const reply = (await this.follower.xread('COUNT', PAGE, 'BLOCK', this.blockMs, 'STREAMS', this.options.stream, this.lastId)) as [string, StreamEntry[]][] | null;
        if (reply) this.apply(reply[0][1]);
        this.markFresh(sent);
      } catch (err) {
        if (this.halted) break;
        this.noteStale(err as Error);
        // The connection reconnects by itself; until then each read fails at once.
        await new Promise((resolve) => setTimeout(resolve, Math.min(200, this.blockMs)));
      }
    }
  }

  private apply(entries: StreamEntry[]): void {
    for (const [id, fields] of entries) {
      if (compareIds(id, this.lastId) <= 0) continue;
      this.lastId = id;
      let sids = '';
      let until = 0;
      for (let i = 0; i < fields.length; i += 2) {
        if (fields[i] === 'sids') sids = fields[i + 1];
        else if (fields[i] === 'until') until = Number(fields[i + 1]);
      }
      for (const sid of sids.split(' ')) if (sid) this.remember(sid, until);
      if (this.options.keepEntries && until > this.now()) {
        const entry = { id, sids: sids.split(' ').filter(Boolean), until };
        this.entries.push(entry);
        for (const listener of this.listeners) listener(entry);
      }
    }
    this.sweep();
  }

  private markFresh(sent: number): void {
    if (sent > this.freshAsOf) this.freshAsOf = sent;
    if (this.stale && this.fresh) {
      this.stale = false;
      this.logger.info({ tracked: this.ended.size }, 'Revocation feed caught up: checks are answered from memory again');
    }
  }

  private noteStale(err?: Error): void {
    if (this.stale || this.fresh) return;
    this.stale = true;
    this.logger.warn(
      { reason: err?.message, behind_ms: this.now() - this.freshAsOf, bound_ms: this.options.maxStalenessMs },
      'Revocation feed behind its bound: access token checks read the store until it catches up, and are refused while the store cannot be read',
    );
  }
}

type StreamEntry = [id: string, fields: string[]];

/** Orders two stream ids (`<ms>-<seq>`). */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-');
  const [bm, bs] = b.split('-');
  const byMs = Number(am) - Number(bm);
  return byMs !== 0 ? Math.sign(byMs) : Math.sign(Number(as) - Number(bs));
}
