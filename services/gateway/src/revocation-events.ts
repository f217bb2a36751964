// The revocation feed for back ends outside this stack (GET /api/revocations): a server-sent event
// stream of ended sessions, for services that hold one of REVOCATION_FEED_TOKENS, so that they refuse
// an ended session within a second with no call per request and no access to this stack's Redis
// (libs/verifier follows it). It replays what the gateway's own feed still holds after the client's
// Last-Event-ID (every entry, for a new client), then sends each new ending as the gateway applies
// it, and a heartbeat every second carrying how fresh the gateway's own view is: a gateway that lost
// Redis stops vouching, and its followers refuse rather than let an ended session through.
import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type { RevocationEntry } from '@acct/shared/redis';

export interface RevocationSource {
  readonly freshAsOfMs: number;
  entriesAfter(id?: string): RevocationEntry[];
  subscribe(listener: (entry: RevocationEntry) => void): () => void;
}

const HEARTBEAT_MS = 1_000;
/** Streams one feed token may hold open on one gateway: a back end's replicas and a reconnect or two, not a leaked token's thousand sockets. */
export const STREAMS_PER_TOKEN = 16;

export class RevocationEvents {
  private readonly digests: Buffer[];
  private readonly open = new Set<http.ServerResponse>();
  /** Open streams by the index of the token that opened them. */
  private readonly perToken = new Map<number, number>();

  constructor(
    private readonly source: RevocationSource,
    tokens: string[],
    private readonly maxPerToken = STREAMS_PER_TOKEN,
  ) {
    this.digests = tokens.map(digest);
  }

  /** Whether any back end may follow the feed (REVOCATION_FEED_TOKENS set). */
  get enabled(): boolean {
    return this.digests.length > 0;
  }

  /** Whether `Authorization: Bearer <token>` names one of the tokens (compared by digest, in constant time). */
  allows(header: string | undefined): boolean {
    return this.tokenOf(header) !== undefined;
  }

  /** Which token `Authorization: Bearer <token>` names, by its index; every token is compared, in constant time. */
  tokenOf(header: string | undefined): number | undefined {
    const token = /^Bearer +(\S+)$/i.exec(header?.trim() ?? '')?.[1];
    if (!token) return undefined;
    const given = digest(token);
    let found: number | undefined;
    this.digests.forEach((known, i) => {
      if (timingSafeEqual(given, known)) found = i;
    });
    return found;
  }

  /** Whether the token may open one more stream here. */
  hasRoomFor(token: number): boolean {
    return (this.perToken.get(token) ?? 0) < this.maxPerToken;
  }

  /** Streams the feed until the client goes away, counted against the token that opened it. */
  stream(req: http.IncomingMessage, res: http.ServerResponse, headers: string[], token = -1): void {
    this.perToken.set(token, (this.perToken.get(token) ?? 0) + 1);
    const lastId = String(req.headers['last-event-id'] ?? '');
    res.writeHead(200, [...headers, 'Content-Type', 'text/event-stream; charset=utf-8', 'Cache-Control', 'no-store', 'X-Accel-Buffering', 'no']);
    res.write('retry: 1000\n\n');
    const send = (entry: RevocationEntry) => res.write(`id: ${entry.id}\nevent: revoked\ndata: ${JSON.stringify({ sids: entry.sids, until: entry.until })}\n\n`);
    // New entries are queued from now, so that none falls between the replay and the subscription.
    const pending: RevocationEntry[] = [];
    let replayed = false;
    const unsubscribe = this.source.subscribe((entry) => (replayed ? send(entry) : pending.push(entry)));
    const replay = this.source.entriesAfter(/^\d+-\d+$/.test(lastId) ? lastId : undefined);
    for (const entry of replay) send(entry);
    const last = replay.at(-1)?.id ?? lastId;
    for (const entry of pending) if (!last || compare(entry.id, last) > 0) send(entry);
    replayed = true;
    const heartbeat = () => res.write(`event: heartbeat\ndata: ${JSON.stringify({ freshAsOf: this.source.freshAsOfMs })}\n\n`);
    heartbeat();
    const timer = setInterval(heartbeat, HEARTBEAT_MS);
    this.open.add(res);
    res.once('close', () => {
      clearInterval(timer);
      unsubscribe();
      this.open.delete(res);
      const left = (this.perToken.get(token) ?? 1) - 1;
      if (left > 0) this.perToken.set(token, left);
      else this.perToken.delete(token);
    });
  }

  /** Ends every open stream (the gateway is stopping): followers reconnect, to another replica, from their last event. */
  endAll(): void {
    for (const res of this.open) res.end();
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Redis stream ids (`<ms>-<seq>`) in order. */
function compare(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am - bm || as - bs;
}
