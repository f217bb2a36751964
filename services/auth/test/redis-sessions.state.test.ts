// The refresh session store against real Redis, with a controllable clock for lifetimes.
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { LATE_RETRIES, RedisSessions } from '../src/data-access/redis-sessions';
import type { SessionOwner } from '../src/domain/ports';
import { isolatedRedis, type IsolatedRedis } from '@acct/test-harness/isolation';

let isolated: IsolatedRedis;
let redis: Redis;
let raw: Redis;
let names: IsolatedRedis['names'];
let now = Date.now();
let store: RedisSessions;
/** What the store announced on the revocation feed, in order. */
const announced: string[] = [];

beforeAll(() => {
  isolated = isolatedRedis('rstore');
  ({ redis, raw, names } = isolated);
  store = new RedisSessions(redis, { idleTtlMs: 60_000, graceMs: 10_000, lateRetryMs: 300_000, maxAgeMs: { user: 3_600_000, admin: 600_000 }, maxPerAccount: 3, revocationRetentionMs: 960_000 }, { publish: async (ids) => void announced.push(...ids) }, () => now);
});
afterAll(async () => {
  await isolated.close();
});

/** Opens a session under epoch 0 (an account whose credentials never changed). */
async function open(owner: SessionOwner, credentialEpoch = 0): Promise<{ token: string; sessionId: string }> {
  const opened = await store.create({ ...owner, credentialEpoch });
  if (opened === 'superseded') throw new Error('superseded');
  return opened;
}

describe('RedisSessions', () => {
  it('stores only hashes: neither the token nor its secret is in Redis', async () => {
    const { token, sessionId } = await open({ kind: 'user', accountId: 'a1', role: 'user' });
    const stored = await raw.hgetall(`${names.redisPrefix}rs:{${sessionId}}`);
    expect(JSON.stringify(stored)).not.toContain(token.split('.')[1]);
    expect(stored).toMatchObject({ kind: 'user', accountId: 'a1', role: 'user' });
  });

  it('ends a session at its absolute lifetime even while it keeps rotating', async () => {
    now = Date.now();
    let { token } = await open({ kind: 'admin', accountId: 'a2', role: 'admin' });
    for (let i = 0; i < 5; i++) {
      now += 100_000;
      const result = await store.rotate('admin', token);
      expect(result.outcome).toBe('rotated');
      token = (result as { token: string }).token;
    }
    now += 100_001; // past 600 s since creation
    expect((await store.rotate('admin', token)).outcome).toBe('expired');
  });

  it('gives the same successor within the grace window, and revokes when a token comes back after its successor was used', async () => {
    now = Date.now();
    const { token } = await open({ kind: 'user', accountId: 'a3', role: 'user' });
    const first = (await store.rotate('user', token)) as { token: string };
    now += 9_000;
    const second = await store.rotate('user', token);
    expect(second).toMatchObject({ outcome: 'grace', token: first.token });
    // The successor is used: the session moves on, and the token before it is now two rotations old.
    now += 2_000;
    expect((await store.rotate('user', first.token)).outcome).toBe('rotated');
    expect((await store.rotate('user', token)).outcome).toBe('reused');
    expect((await store.rotate('user', first.token)).outcome).toBe('missing');
  });

  it('opens a successor sealed by the release before (its key as raw bytes): a deploy inside the grace window answers the same successor', async () => {
    now = Date.now();
    const { token, sessionId } = await open({ kind: 'user', accountId: 'a3b', role: 'user' });
    const first = (await store.rotate('user', token)) as { token: string };
    // Sealed as 508d213 sealed it: the same HKDF bytes handed to createCipheriv as a Buffer.
    const [id, secret] = token.split('.');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(hkdfSync('sha256', secret, id, 'refresh-successor', 32)), iv);
    const body = Buffer.concat([cipher.update(first.token, 'utf8'), cipher.final()]);
    await raw.hset(`${names.redisPrefix}rs:{${sessionId}}`, 'prevEnc', Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url'));
    now += 1_000;
    expect(await store.rotate('user', token)).toMatchObject({ outcome: 'grace', token: first.token });
  });

  describe('a refresh whose answer was lost (the successor never presented), retried after the grace window', () => {
    it('gets the same successor when retried within minutes, and the session goes on', async () => {
      now = Date.now();
      const { token } = await open({ kind: 'user', accountId: 'lost-1', role: 'user' });
      const lost = (await store.rotate('user', token)) as { token: string };
      // A Redis outage longer than the window: the rotation was kept, its answer never reached the app.
      now += 12_000;
      expect(await store.rotate('user', token)).toMatchObject({ outcome: 'late_retry', token: lost.token });
      now += 5_000;
      expect(await store.rotate('user', token)).toMatchObject({ outcome: 'late_retry', token: lost.token });
      expect((await store.rotate('user', lost.token)).outcome).toBe('rotated');
      expect(announced).not.toContain((lost as unknown as { sessionId: string }).sessionId);
    });

    it('is still theft when the successor was used: the old token revokes the session', async () => {
      now = Date.now();
      const { token, sessionId } = await open({ kind: 'user', accountId: 'lost-2', role: 'user' });
      const next = (await store.rotate('user', token)) as { token: string };
      now += 12_000;
      expect((await store.rotate('user', next.token)).outcome).toBe('rotated');
      expect((await store.rotate('user', token)).outcome).toBe('reused');
      expect(announced).toContain(sessionId);
    });

    it('catches two holders taking turns: a second late retry within three rotations of the first is reuse', async () => {
      now = Date.now();
      const { token, sessionId } = await open({ kind: 'user', accountId: 'lost-3', role: 'user' });
      const t2 = (await store.rotate('user', token)) as { token: string };
      now += 12_000;
      // The other holder picks the session up with the old token…
      expect((await store.rotate('user', token)).outcome).toBe('late_retry');
      // …one of them moves it on, and the other comes back with the token just rotated out.
      const t3 = (await store.rotate('user', t2.token)) as { token: string };
      expect(t3.token).toBeDefined();
      now += 12_000;
      expect((await store.rotate('user', t2.token)).outcome).toBe('reused');
      expect(announced).toContain(sessionId);
    });

    it('is theft again once the minutes after the rotation are spent: a stolen token rotated once ends the session', async () => {
      now = Date.now();
      const { token, sessionId } = await open({ kind: 'user', accountId: 'lost-5', role: 'user' });
      await store.rotate('user', token);
      // The owner stays offline; the thief comes back with the token it stole, past the late-retry minutes.
      now += 300_001;
      expect((await store.rotate('user', token)).outcome).toBe('reused');
      expect(announced).toContain(sessionId);
    });

    it(`is counted: the ${LATE_RETRIES + 1}th late retry of one rotation is theft`, async () => {
      now = Date.now();
      const { token, sessionId } = await open({ kind: 'user', accountId: 'lost-6', role: 'user' });
      await store.rotate('user', token);
      now += 12_000;
      for (let i = 0; i < LATE_RETRIES; i++) expect((await store.rotate('user', token)).outcome).toBe('late_retry');
      expect((await store.rotate('user', token)).outcome).toBe('reused');
      expect(announced).toContain(sessionId);
    });

    it('is allowed again once three rotations have passed since the last one', async () => {
      now = Date.now();
      let { token } = await open({ kind: 'user', accountId: 'lost-4', role: 'user' });
      let next = (await store.rotate('user', token)) as { token: string };
      now += 12_000;
      // Every late retry this rotation allows: the count starts over with the next rotation.
      for (let i = 0; i < LATE_RETRIES; i++) expect((await store.rotate('user', token)).outcome).toBe('late_retry');
      for (let i = 0; i < 3; i++) {
        token = next.token;
        next = (await store.rotate('user', token)) as { token: string };
        now += 1_000;
      }
      now += 12_000;
      expect(await store.rotate('user', token)).toMatchObject({ outcome: 'late_retry', token: next.token });
    });
  });

  it('keeps kinds apart and revokes every session of an account', async () => {
    now = Date.now();
    const a = await open({ kind: 'user', accountId: 'a4', role: 'user' });
    const b = await open({ kind: 'user', accountId: 'a4', role: 'user' });
    expect((await store.rotate('admin', a.token)).outcome).toBe('wrong_kind');
    expect(await store.revokeAll('user', 'a4', 1)).toBe(2);
    expect((await store.rotate('user', a.token)).outcome).toBe('missing');
    expect((await store.rotate('user', b.token)).outcome).toBe('missing');
  });

  it('refuses a token with the right session id but a forged secret, and revokes on it', async () => {
    const { token } = await open({ kind: 'user', accountId: 'a5', role: 'user' });
    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    expect(await store.revoke('user', forged)).toBeUndefined();
    expect((await store.rotate('user', token)).outcome).toBe('rotated');
  });

  describe('the credential epoch', () => {
    it('when the epoch moved on after the account was checked, then a new session is refused and none is left', async () => {
      now = Date.now();
      await store.revokeAll('user', 'e1', 1);
      expect(await store.create({ kind: 'user', accountId: 'e1', role: 'user', credentialEpoch: 0 })).toBe('superseded');
      expect(await store.list('user', 'e1')).toEqual([]);
      expect(await store.create({ kind: 'user', accountId: 'e1', role: 'user', credentialEpoch: 1 })).toMatchObject({ sessionId: expect.any(String) });
    });

    it('when a change could not announce its end (the feed down), then its sessions neither refresh nor count as active, and end at their next refresh', async () => {
      now = Date.now();
      const feedDown = new RedisSessions(redis, { idleTtlMs: 60_000, graceMs: 10_000, lateRetryMs: 300_000, maxAgeMs: { user: 3_600_000, admin: 600_000 }, maxPerAccount: 3, revocationRetentionMs: 960_000 }, { publish: async () => Promise.reject(new Error('feed down')) }, () => now);
      const { token, sessionId } = await open({ kind: 'user', accountId: 'e2', role: 'user' });
      const rotated = await store.rotate('user', token);
      if (rotated.outcome !== 'rotated') throw new Error(rotated.outcome);
      await expect(feedDown.revokeAll('user', 'e2', 1)).rejects.toThrow('feed down');
      // Not deleted: the change stopped before it, as its announcement failed.
      expect(await raw.exists(`${names.redisPrefix}rs:{${sessionId}}`)).toBe(1);
      expect(await store.isActive('user', sessionId, 'e2')).toBe(false);
      // Neither the current token nor the one just rotated out (its grace window still open).
      expect((await store.rotate('user', token)).outcome).toBe('superseded');
      expect(announced).toContain(sessionId);
      expect(await raw.exists(`${names.redisPrefix}rs:{${sessionId}}`)).toBe(0);
      expect((await store.rotate('user', rotated.token)).outcome).toBe('missing');
    });

    it('marks no session that is already gone (no hash without a lifetime is made)', async () => {
      now = Date.now();
      const { sessionId } = await open({ kind: 'user', accountId: 'e4', role: 'user' });
      await raw.del(`${names.redisPrefix}rs:{${sessionId}}`);
      await store.revokeAll('user', 'e4', 1);
      expect(await raw.exists(`${names.redisPrefix}rs:{${sessionId}}`)).toBe(0);
    });

    it('never moves back: an older change recorded late leaves the newer epoch', async () => {
      await store.revokeAll('admin', 'e3', 5);
      await store.revokeAll('admin', 'e3', 3);
      expect(await raw.get(`${names.redisPrefix}rs-epoch:admin:e3`)).toBe('5');
    });
  });

  it('when an account opens more sessions than the cap, then the oldest end first, and their ids are answered', async () => {
    now = Date.now();
    const opened: Array<{ token: string; sessionId: string }> = [];
    for (let i = 0; i < 3; i++) {
      now += 1_000;
      opened.push(await open({ kind: 'user', accountId: 'cap1', role: 'user' }));
    }
    now += 1_000;
    const fourth = await store.create({ kind: 'user', accountId: 'cap1', role: 'user', credentialEpoch: 0 });
    expect(fourth).toMatchObject({ evicted: [opened[0].sessionId] });
    expect((await store.rotate('user', opened[0].token)).outcome).toBe('missing');
    expect((await store.list('user', 'cap1')).map((s) => s.id).sort()).toEqual([opened[1].sessionId, opened[2].sessionId, (fourth as { sessionId: string }).sessionId].sort());
  });

  it('when a refresh token is revoked, then it answers whose session it was, once', async () => {
    const { token, sessionId } = await open({ kind: 'user', accountId: 'rv1', role: 'user' });
    expect(await store.revoke('user', token)).toEqual({ sessionId, accountId: 'rv1' });
    expect(await store.revoke('user', token)).toBeUndefined();
  });

  describe('the revocation feed', () => {
    it('when a session ends any of the store\'s ways, then its id is announced', async () => {
      now = Date.now();
      const ways: Record<string, () => Promise<string[]>> = {
        logout: async () => {
          const s = await open({ kind: 'user', accountId: 'f1', role: 'user' });
          await store.revoke('user', s.token);
          return [s.sessionId];
        },
        'one session deleted': async () => {
          const s = await open({ kind: 'user', accountId: 'f2', role: 'user' });
          await store.revokeSession('user', 'f2', s.sessionId);
          return [s.sessionId];
        },
        'sign-out of the others': async () => {
          const kept = await open({ kind: 'user', accountId: 'f3', role: 'user' });
          const other = await open({ kind: 'user', accountId: 'f3', role: 'user' });
          await store.revokeOthers('user', 'f3', kept.sessionId);
          return [other.sessionId];
        },
        'every session (reset, disable)': async () => {
          const a = await open({ kind: 'admin', accountId: 'f4', role: 'admin' });
          const b = await open({ kind: 'admin', accountId: 'f4', role: 'admin' });
          await store.revokeAll('admin', 'f4', 1);
          return [a.sessionId, b.sessionId];
        },
        'refresh token reuse': async () => {
          const s = await open({ kind: 'user', accountId: 'f5', role: 'user' });
          const next = (await store.rotate('user', s.token)) as { token: string };
          await store.rotate('user', next.token);
          now += 11_000;
          expect((await store.rotate('user', s.token)).outcome).toBe('reused');
          return [s.sessionId];
        },
      };
      for (const [way, end] of Object.entries(ways)) {
        announced.length = 0;
        const ended = await end();
        expect({ way, announced: [...announced].sort() }).toEqual({ way, announced: [...ended].sort() });
      }
    });

    it('when the feed refuses the announcement, then the session is not ended', async () => {
      const failing = new RedisSessions(redis, { idleTtlMs: 60_000, graceMs: 10_000, lateRetryMs: 300_000, maxAgeMs: { user: 3_600_000, admin: 600_000 }, maxPerAccount: 3, revocationRetentionMs: 960_000 }, { publish: () => Promise.reject(new Error('feed down')) });
      const opened = await failing.create({ kind: 'user', accountId: 'f6', role: 'user', credentialEpoch: 0 });
      const { sessionId } = opened as { sessionId: string };
      await expect(failing.revokeSession('user', 'f6', sessionId)).rejects.toThrow('feed down');
      expect(await store.isActive('user', sessionId, 'f6')).toBe(true);
    });
  });
});
