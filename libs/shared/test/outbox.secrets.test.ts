// The outbox keeps what grants access (a one-time code, a reset link) only until the broker has it.
import mongoose, { type Connection } from 'mongoose';
import { createMemoryLogger, type EventType, type Publisher } from '@acct/shared';
import { Outbox } from '@acct/shared/mongo';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';
import { until } from '@acct/test-harness/until';

let connection: Connection;
const started: Outbox[] = [];
beforeAll(async () => {
  connection = await mongoose.createConnection(testUrls().mongo, { dbName: isolatedNames('outboxsecrets').mongoDb }).asPromise();
});
afterEach(async () => {
  // Also when an assertion failed: a relay left running would keep jest waiting.
  await Promise.all(started.splice(0).map((outbox) => outbox.stop()));
});
afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
});

class RecordingPublisher implements Publisher {
  up = true;
  readonly published: Array<{ type: EventType; eventId: string; payload: Record<string, unknown> }> = [];
  async publish(type: EventType, eventId: string, payload: Record<string, unknown>): Promise<void> {
    if (!this.up) throw new Error('broker down');
    this.published.push({ type, eventId, payload });
  }
}

function startOutbox(publisher: Publisher, options: { pollMs: number; leaseMs?: number }) {
  const outbox = new Outbox(connection, createMemoryLogger().logger, options);
  started.push(outbox);
  outbox.start(publisher);
  return outbox;
}

const stored = (id: string) => connection.collection('outbox').findOne({ _id: id as never });


const otp = (expiresAt: Date) => ({ adminId: 'a1', email: 'admin@example.com', name: 'Admin', code: '123456', expiresAt: expiresAt.toISOString() });

describe('Outbox secrets at rest', () => {
  it('when the broker confirms a one-time code, then the stored entry keeps its payload without the code', async () => {
    const publisher = new RecordingPublisher();
    const outbox = startOutbox(publisher, { pollMs: 20 });
    const id = await outbox.add('admin.otp.requested', otp(new Date(Date.now() + 300_000)));
    await until(async () => (await stored(id))?.status === 'published');
    expect(publisher.published.find((p) => p.eventId === id)?.payload.code).toBe('123456');
    const doc = await stored(id);
    expect(doc?.payload).toEqual(expect.objectContaining({ adminId: 'a1', email: 'admin@example.com' }));
    expect(doc?.payload).not.toHaveProperty('code');
    expect(doc?.closedAt).toBeInstanceOf(Date);
  });

  it('when a reset link is published, then the stored entry no longer holds the link', async () => {
    const publisher = new RecordingPublisher();
    const outbox = startOutbox(publisher, { pollMs: 20 });
    const id = await outbox.add('account.password_reset.requested', {
      kind: 'user',
      accountId: 'u1',
      email: 'user@example.com',
      name: 'User',
      resetUrl: 'https://app.example.com/reset?token=secret-token',
      expiresAt: new Date(Date.now() + 1_800_000).toISOString(),
    });
    await until(async () => (await stored(id))?.status === 'published');
    expect(JSON.stringify(await stored(id))).not.toContain('secret-token');
  });

  it('when a secret expires before the broker is back, then the entry is closed unsent and without the secret', async () => {
    const publisher = new RecordingPublisher();
    publisher.up = false;
    const outbox = startOutbox(publisher, { pollMs: 20, leaseMs: 100 });
    const id = await outbox.add('admin.otp.requested', otp(new Date(Date.now() + 300)));
    expect((await stored(id))?.payload.code).toBe('123456');
    // Failed publishes back off 1 s, then 2 s; past the code's expiry the next claim closes it.
    await until(async () => (await stored(id))?.status === 'expired', 8_000);
    publisher.up = true;
    await new Promise((r) => setTimeout(r, 200));
    expect(publisher.published.some((p) => p.eventId === id)).toBe(false);
    expect((await stored(id))?.payload).not.toHaveProperty('code');
  });

  it('keeps events without secret fields whole once published', async () => {
    const publisher = new RecordingPublisher();
    const outbox = startOutbox(publisher, { pollMs: 20 });
    const id = await outbox.add('user.login.succeeded', { userId: 'u9', ip: '203.0.113.1' });
    await until(async () => (await stored(id))?.status === 'published');
    expect((await stored(id))?.payload).toEqual(expect.objectContaining({ userId: 'u9', ip: '203.0.113.1' }));
  });
});
