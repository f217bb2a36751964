// Several replicas, crashes and shutdowns: every event is acted on once.
import { isolatedNames } from '@acct/test-harness/isolation';
import { until } from '@acct/test-harness/until';
import { RecordingPushSender, startTestNotifier, TestPublisher, removeNotifierNames } from '@acct/test-stack/notifier';

describe('notifier replicas', () => {
  const names = isolatedNames('notifscale');
  let publisher: TestPublisher;
  beforeAll(async () => {
    publisher = await TestPublisher.open(names.exchange);
  });
  afterAll(async () => {
    await removeNotifierNames(names);
    await publisher.close();
  });

  it('two replicas share the queue and an event published twice is sent once', async () => {
    const shared = new RecordingPushSender();
    const a = await startTestNotifier(names, { push: shared });
    const b = await startTestNotifier(names, { push: shared });
    try {
      await publisher.publish('device.registered', { userId: 'r1', deviceId: 'd1', platform: 'win32', pushToken: 'tok-r1' });
      await until(() => [...a.logs, ...b.logs].some((r) => r.outcome === 'stored'));
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const eventId = await publisher.publish('user.login.succeeded', { userId: 'r1', ip: '10.0.0.1' });
        await publisher.publish('user.login.succeeded', { userId: 'r1', ip: '10.0.0.1', eventId });
        ids.push(eventId);
      }
      await until(() => shared.sent.length >= 20, 10_000);
      await until(() => ids.every((id) => [...a.logs, ...b.logs].filter((r) => r.event_id === id && ['sent', 'duplicate'].includes(r.outcome)).length === 2), 10_000, 'both copies handled');
      expect(shared.sent).toHaveLength(20);
      // Both replicas took messages from the queue. (Which one sends a pair's first copy is a race:
      // round-robin can hand every original to one replica and every duplicate to the other.)
      const handled = (logs: typeof a.logs) => logs.filter((r) => ids.includes(r.event_id as string)).length;
      expect(handled(a.logs)).toBeGreaterThan(0);
      expect(handled(b.logs)).toBeGreaterThan(0);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('a replica that dies before its ack: the message is redelivered to another and sent once', async () => {
    const stuck = new RecordingPushSender();
    let abandon!: (err: Error) => void;
    stuck.gate = new Promise<void>((_resolve, reject) => (abandon = reject));
    const a = await startTestNotifier(names, { push: stuck, env: { PREFETCH: '1' } });
    await publisher.publish('device.registered', { userId: 'r2', deviceId: 'd1', platform: 'win32', pushToken: 'tok-r2' });
    await until(() => a.logs.some((r) => r.outcome === 'stored'));
    const eventId = await publisher.publish('user.login.succeeded', { userId: 'r2', ip: '10.0.0.2' });
    await new Promise((r) => setTimeout(r, 200)); // a holds the message, claimed and unacked
    const healthy = new RecordingPushSender();
    const b = await startTestNotifier(names, { push: healthy });
    try {
      await a.crash();
      await until(() => healthy.sent.some((s) => s.tokens.includes('tok-r2')), 10_000, 'redelivered send');
      await new Promise((r) => setTimeout(r, 300));
      expect(healthy.sent.filter((s) => s.tokens.includes('tok-r2'))).toHaveLength(1);
      expect(stuck.sent).toHaveLength(0);
      expect(b.logs.filter((r) => r.event_id === eventId).map((r) => r.outcome)).toContain('sent');
    } finally {
      abandon(new Error('the crashed replica never comes back'));
      await a.stop();
      await b.stop();
    }
  });

  it('on stop, a replica finishes the message in hand, acks it, and stops cleanly', async () => {
    const slow = new RecordingPushSender();
    let release!: () => void;
    slow.gate = new Promise<void>((r) => (release = r));
    const a = await startTestNotifier(names, { push: slow });
    await publisher.publish('device.registered', { userId: 'r3', deviceId: 'd1', platform: 'win32', pushToken: 'tok-r3' });
    await until(() => a.logs.some((r) => r.outcome === 'stored'));
    const eventId = await publisher.publish('user.login.succeeded', { userId: 'r3', ip: '10.0.0.3' });
    await new Promise((r) => setTimeout(r, 100));
    const stopped = a.stop();
    setTimeout(release, 200);
    expect(await stopped).toBe(true);
    expect(slow.sent.filter((s) => s.tokens.includes('tok-r3'))).toHaveLength(1);
    expect(a.logs.find((r) => r.event_id === eventId)).toMatchObject({ outcome: 'sent' });
    // Nothing is left for the next replica: the message was acked.
    const next = new RecordingPushSender();
    const b = await startTestNotifier(names, { push: next });
    await new Promise((r) => setTimeout(r, 500));
    await b.stop();
    expect(next.sent.filter((s) => s.tokens.includes('tok-r3'))).toHaveLength(0);
  });
});
