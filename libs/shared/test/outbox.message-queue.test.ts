// The outbox: a broker outage delays events and loses none; several relays never publish one twice.
import mongoose, { type Connection } from 'mongoose';
import { createMemoryLogger, type EventType } from '@acct/shared';
import { type Publisher } from '@acct/shared';
import { Outbox } from '@acct/shared/mongo';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';
import { until } from '@acct/test-harness/until';
import { scaled } from '@acct/test-harness/time-scale';

let connection: Connection;
/** Every relay a test starts; stopped after each test, also when an assertion failed (jest would wait for a running one). */
const relays: Outbox[] = [];
const relay = (options: ConstructorParameters<typeof Outbox>[2]) => {
  const outbox = new Outbox(connection, createMemoryLogger().logger, options);
  relays.push(outbox);
  return outbox;
};
beforeAll(async () => {
  connection = await mongoose.createConnection(testUrls().mongo, { dbName: isolatedNames('outbox').mongoDb }).asPromise();
});
afterEach(async () => {
  await Promise.all(relays.splice(0).map((outbox) => outbox.stop()));
});
afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
});

class FlakyPublisher implements Publisher {
  up = false;
  readonly published: Array<{ type: EventType; eventId: string }> = [];
  async publish(type: EventType, eventId: string): Promise<void> {
    if (!this.up) throw new Error('broker down');
    await new Promise((r) => setTimeout(r, 1));
    this.published.push({ type, eventId });
  }
}


describe('Outbox relay', () => {
  it('keeps events while the broker is down and publishes every one when it returns', async () => {
    const outbox = relay({ pollMs: 20, leaseMs: 100 });
    await outbox.init();
    const publisher = new FlakyPublisher();
    outbox.start(publisher);
    const ids = await Promise.all(Array.from({ length: 5 }, (_, i) => outbox.add('user.login.succeeded', { userId: `u${i}`, ip: '127.0.0.1' })));
    await new Promise((r) => setTimeout(r, 200));
    expect(publisher.published).toHaveLength(0);
    expect((await outbox.pendingStats()).pending).toBe(5);
    publisher.up = true;
    // Failed entries back off (1 s, 2 s, …) before they are claimed again.
    await until(() => publisher.published.length === 5, 10_000);
    await outbox.stop();
    expect(publisher.published.map((p) => p.eventId).sort()).toEqual([...ids].sort());
    expect((await outbox.pendingStats()).pending).toBe(0);
  });

  it('shares the work between three relays without publishing an event twice', async () => {
    const publisher = new FlakyPublisher();
    publisher.up = true;
    const three = [1, 2, 3].map(() => relay({ pollMs: 10 }));
    await three[0].init();
    three.forEach((r) => r.start(publisher));
    await Promise.all(Array.from({ length: 60 }, (_, i) => three[i % 3].add('user.login.succeeded', { userId: `p${i}`, ip: '::1' })));
    await until(() => publisher.published.length >= 60);
    await new Promise((r) => setTimeout(r, 100));
    await Promise.all(three.map((r) => r.stop()));
    const ids = publisher.published.map((p) => p.eventId);
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
  });

  it('publishes a new event at once, without waiting for the relay to poll', async () => {
    const publisher = new FlakyPublisher();
    publisher.up = true;
    const outbox = relay({ pollMs: 60_000 });
    outbox.start(publisher);
    // Let the relay's first pass find nothing and go to sleep for a minute.
    await new Promise((r) => setTimeout(r, 100));
    const id = await outbox.add('user.login.succeeded', { userId: 'eager', ip: '127.0.0.1' });
    await until(() => publisher.published.some((p) => p.eventId === id), 2_000);
    await outbox.stop();
    expect(publisher.published.filter((p) => p.eventId === id)).toHaveLength(1);
    expect(await connection.collection('outbox').findOne({ _id: id as never })).toEqual(expect.objectContaining({ status: 'published', attempts: 1 }));
  });

  it('leaves an event whose writer died before publishing to another relay once its lease runs out', async () => {
    // The writer's publish never completes (a replica that dies mid-publish).
    const stuck: Publisher = { publish: () => new Promise<void>(() => undefined) };
    // The lease outlasts the check below with room: a run slowed down (a busy machine, jest's
    // --detectOpenHandles) once took over 300 ms from the lease to the check, and the survivor rightly took it.
    const writer = relay({ pollMs: 60_000, leaseMs: scaled(1_000), stopGraceMs: 50 });
    writer.start(stuck);
    const id = await writer.add('user.login.succeeded', { userId: 'orphan', ip: '127.0.0.1' });
    const publisher = new FlakyPublisher();
    publisher.up = true;
    const survivor = relay({ pollMs: 20 });
    survivor.start(publisher);
    await new Promise((r) => setTimeout(r, 150));
    // Still leased to the writer.
    expect(publisher.published.some((p) => p.eventId === id)).toBe(false);
    await until(() => publisher.published.some((p) => p.eventId === id), 5_000);
    await survivor.stop();
    // The writer's stop does not wait for its hung publish beyond its grace time.
    const stopping = Date.now();
    await writer.stop();
    expect(Date.now() - stopping).toBeLessThan(scaled(1_000));
    expect(await connection.collection('outbox').findOne({ _id: id as never })).toEqual(expect.objectContaining({ status: 'published', attempts: 2 }));
  });

  it('refuses an event whose payload breaks its schema', async () => {
    const outbox = relay({ pollMs: 1000 });
    await expect(outbox.add('user.login.succeeded', { userId: '', ip: '1.2.3.4' })).rejects.toThrow(/userId/);
  });
});
