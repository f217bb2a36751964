// Back-channel logout (OpenID Connect Back-Channel Logout 1.0): the apps told when a session they
// hold ends, whichever way it ends and whichever replica ends it. The end claims the app's watch (so
// it is told once), keeps a delivery in MongoDB leased to this replica and tells the app at once; an
// app that does not answer is tried again by this job on any replica, backing off, until it answers
// or `maxAttempts` pass. The logout token itself is the provider's (security/openid-provider.ts).
import { PollLoop, type AccountKind, type Logger } from '@acct/shared';
import type { AppLogouts } from '../../domain/shared/ports';
import type { AppLogout, ClaimedAppLogout, MongoAppLogoutQueue } from '../../data-access/mongo-app-logout-queue';
import type { RedisAppSessionWatch } from '../../data-access/redis-app-grants';

/** Sends one logout token; `not_asked` when the app no longer asks to be told (or is gone). Throws when the app did not take it. */
export type TellApp = (logout: AppLogout) => Promise<'told' | 'not_asked'>;

export class BackchannelLogouts implements AppLogouts {
  private readonly loop: PollLoop;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly watched: Pick<RedisAppSessionWatch, 'watch' | 'claim' | 'forget'>,
    private readonly queue: Pick<MongoAppLogoutQueue, 'enqueue' | 'claim' | 'backOff' | 'remove'>,
    private readonly tell: TellApp,
    private readonly logger: Logger,
    private readonly options: { pollMs: number; /** 20 by default: about 15 minutes of back-off (2 s, 4 s, … 32 s, then a minute each). */ maxAttempts?: number },
  ) {
    this.loop = new PollLoop(
      () => this.drain(),
      (err) => this.logger.warn({ reason: err.message }, 'Back-channel logout pass failed'),
      { pollMs: options.pollMs, jitter: 0.5 },
    );
  }

  watch(kind: AccountKind, accountId: string, sessionId: string, app: { appId: string; sid: string }): Promise<void> {
    return this.watched.watch(kind, accountId, sessionId, app);
  }

  forget(kind: AccountKind, accountId: string, sessionId: string): Promise<void> {
    return this.watched.forget(kind, accountId, sessionId);
  }

  async ended(kind: AccountKind, accountId: string, sessionIds: string[] | 'all'): Promise<void> {
    const claimed = await this.watched.claim(kind, accountId, sessionIds);
    if (claimed.length === 0) return;
    let leased: ClaimedAppLogout[];
    try {
      leased = await this.queue.enqueue(claimed.map((c) => ({ kind, accountId, appId: c.appId, sid: c.sid })));
    } catch (err) {
      // Not kept: the watches go back, so that the next end of these sessions (or a retry of this
      // one by whoever announces it again) tells the apps. Failing that too, the error says so.
      await Promise.all(claimed.map((c) => this.watched.watch(kind, accountId, c.sessionId, { appId: c.appId, sid: c.sid }))).catch(() => undefined);
      throw err;
    }
    // Told now, beside the answer that ended the session; whatever fails is the job's.
    for (const logout of leased) {
      const delivery = this.deliver(logout).finally(() => this.inFlight.delete(delivery));
      this.inFlight.add(delivery);
    }
  }

  start(): void {
    this.loop.start();
  }

  /** Tells every app whose logout is due; answers how many were done with. */
  async drain(): Promise<number> {
    let handled = 0;
    for (;;) {
      const logout = await this.queue.claim();
      if (!logout) return handled;
      await this.deliver(logout);
      handled++;
      if (!this.loop.active) return handled;
    }
  }

  /** Tells the app; a failure is kept for another attempt, or dropped past the last one. Never throws. */
  private async deliver(logout: ClaimedAppLogout): Promise<void> {
    const about = { app_id: logout.appId, account_id: logout.accountId, kind: logout.kind, attempts: logout.attempts };
    try {
      const outcome = await this.tell(logout);
      await this.queue.remove(logout.id);
      if (outcome === 'told') this.logger.info(about, 'App told of the end of its session (back-channel logout)');
    } catch (err) {
      const reason = (err as Error).message;
      const maxAttempts = this.options.maxAttempts ?? 20;
      if (logout.attempts < maxAttempts) {
        this.logger.warn({ ...about, reason }, 'Back-channel logout not taken; will retry');
        await this.queue.backOff(logout.id, logout.attempts, reason).catch(() => undefined);
        return;
      }
      this.logger.error({ ...about, reason }, 'Back-channel logout not taken after every attempt; dropped');
      await this.queue.remove(logout.id).catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }
}

/** With the provider off no app is watched: nothing to tell. */
export const NO_APP_LOGOUTS: AppLogouts = {
  watch: async () => undefined,
  ended: async () => undefined,
  forget: async () => undefined,
};
