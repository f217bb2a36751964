// The back-channel logout job's rules (entry-points/jobs/app-logouts.ts) on in-memory stores: an end
// tells each watching app at once and once; an app that does not take it is tried again until
// `maxAttempts`, then dropped and said so; an app that no longer asks is not told. The stores' own
// rules are their state tests' (redis-cluster.state), the wiring the end-to-end test's
// (openid-provider.response).
import type { AccountKind } from '@acct/shared';
import { BackchannelLogouts, type TellApp } from '../src/entry-points/jobs/app-logouts';
import type { AppLogout, ClaimedAppLogout } from '../src/data-access/mongo-app-logout-queue';
import { MemoryAppLogouts } from './fakes';

/** The queue's rules: leased on enqueue, claimable once its back-off passed (here: at once), gone when removed. */
class MemoryLogoutQueue {
  readonly entries = new Map<string, ClaimedAppLogout & { due: boolean; lastError?: string }>();
  private next = 0;
  /** The store refuses the next enqueue (MongoDB away). */
  failNext = false;
  async enqueue(logouts: AppLogout[]) {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('connection closed');
    }
    return logouts.map((l) => {
      const entry = { ...l, id: String(++this.next), attempts: 1, due: false };
      this.entries.set(entry.id, entry);
      return { ...entry };
    });
  }
  async claim() {
    const entry = [...this.entries.values()].find((e) => e.due);
    if (!entry) return undefined;
    Object.assign(entry, { due: false, attempts: entry.attempts + 1 });
    return { ...entry };
  }
  async backOff(id: string, _attempts: number, reason: string) {
    Object.assign(this.entries.get(id) ?? {}, { due: true, lastError: reason });
  }
  async remove(id: string) {
    this.entries.delete(id);
  }
}

const logged: Array<[string, string]> = [];
const logger = { info: (_: unknown, m: string) => logged.push(['info', m]), warn: (_: unknown, m: string) => logged.push(['warn', m]), error: (_: unknown, m: string) => logged.push(['error', m]) };

function setUp(tell: TellApp, maxAttempts = 3) {
  const watch = new MemoryAppLogouts();
  const queue = new MemoryLogoutQueue();
  const watched = { watch: watch.watch.bind(watch), forget: watch.forget.bind(watch), claim: async (kind: AccountKind, accountId: string, ids: string[] | 'all') => {
    const found = [...watch.watched.values()].filter((w) => w.kind === kind && w.accountId === accountId && (ids === 'all' || ids.includes(w.sessionId)));
    await watch.ended(kind, accountId, ids);
    return found.map((w) => ({ sessionId: w.sessionId, appId: w.appId, sid: w.sid }));
  } };
  const job = new BackchannelLogouts(watched, queue, tell, logger as never, { pollMs: 60_000, maxAttempts });
  return { job, queue };
}

const settle = () => new Promise((r) => setImmediate(r));

beforeEach(() => (logged.length = 0));

describe('back-channel logout delivery', () => {
  it('tells each watching app at once, once', async () => {
    const told: AppLogout[] = [];
    const { job, queue } = setUp(async (l) => (told.push(l), 'told'));
    await job.watch('user', 'u1', 's-1', { appId: 'desktop', sid: 'op-1' });
    await job.watch('user', 'u1', 's-2', { appId: 'cli', sid: 'op-2' });
    await job.ended('user', 'u1', ['s-1']);
    await job.ended('user', 'u1', ['s-1']);
    await settle();
    expect(told).toEqual([expect.objectContaining({ kind: 'user', accountId: 'u1', appId: 'desktop', sid: 'op-1' })]);
    expect(queue.entries.size).toBe(0);
    expect(logged).toEqual([['info', 'App told of the end of its session (back-channel logout)']]);
    // Started and stopped as the service does: the stop waits for nothing.
    job.start();
    await job.stop();
  });

  it('puts the watch back when the delivery cannot be kept, so the next announcement of the end tells the app', async () => {
    const told: AppLogout[] = [];
    const { job, queue } = setUp(async (l) => (told.push(l), 'told'));
    await job.watch('user', 'u1', 's-1', { appId: 'desktop', sid: 'op-1' });
    queue.failNext = true;
    await expect(job.ended('user', 'u1', ['s-1'])).rejects.toThrow('connection closed');
    await settle();
    expect(told).toEqual([]);
    await job.ended('user', 'u1', ['s-1']);
    await settle();
    expect(told).toEqual([expect.objectContaining({ appId: 'desktop', sid: 'op-1' })]);
  });

  it('tries an app that did not take it again, and drops it after the last attempt, saying so', async () => {
    let answers = 0;
    const { job, queue } = setUp(async () => {
      answers++;
      throw new Error('expected 200 OK, got: 503');
    });
    await job.watch('user', 'u1', 's-1', { appId: 'desktop', sid: 'op-1' });
    await job.ended('user', 'u1', 'all');
    await settle();
    expect(answers).toBe(1);
    expect([...queue.entries.values()][0]).toMatchObject({ attempts: 1, lastError: 'expected 200 OK, got: 503' });
    // The job's passes (each takes one entry while the loop is not running).
    expect([await job.drain(), await job.drain(), await job.drain()]).toEqual([1, 1, 0]);
    expect(answers).toBe(3);
    expect(queue.entries.size).toBe(0);
    expect(logged.map(([level]) => level)).toEqual(['warn', 'warn', 'error']);
  });

  it('tells an app on a later attempt, and not at all one that no longer asks', async () => {
    let fail = true;
    const { job, queue } = setUp(async (l) => {
      if (l.appId === 'gone') return 'not_asked';
      if (fail) throw new Error('fetch failed');
      return 'told';
    });
    await job.watch('user', 'u1', 's-1', { appId: 'desktop', sid: 'op-1' });
    await job.watch('user', 'u1', 's-2', { appId: 'gone', sid: 'op-2' });
    await job.ended('user', 'u1', 'all');
    await settle();
    expect(queue.entries.size).toBe(1);
    fail = false;
    expect(await job.drain()).toBe(1);
    expect(queue.entries.size).toBe(0);
    expect(logged).toEqual([
      ['warn', 'Back-channel logout not taken; will retry'],
      ['info', 'App told of the end of its session (back-channel logout)'],
    ]);
  });
});
